import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3FileStore } from '../../src/files/s3-file-store.ts';
import { CHECK_TIMEOUT_MS } from '../../src/http/health/readiness.ts';
import { startS3Server, type TestS3Server } from '../support/peers/s3.ts';
import { useServiceApps } from '../support/data/service-apps.ts';

const services = useServiceApps();

describe('GET /readyz with files in S3', () => {
  let s3: TestS3Server | undefined;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('reports the bucket ok while it answers, and 503 with files unavailable once it stops answering', async () => {
    if (!s3) throw new Error('the S3 server started');
    const store = createS3FileStore(s3.storeOptions());
    const app = await services.build('transactions', {
      readiness: { required: { files: () => store.check() } },
    });
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', files: 'ok' } });

    await s3.close();
    s3 = undefined;
    // The answer is reused for a second: wait for the next one rather than a fixed time.
    const until = Date.now() + 5000;
    let answer = await app.inject({ method: 'GET', url: '/readyz' });
    while (answer.statusCode === 200 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await app.inject({ method: 'GET', url: '/readyz' });
    }
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toEqual({
      status: 'unavailable',
      checks: { database: 'ok', files: 'unavailable' },
    });
  });

  it('answers within its timeout when a dependency never answers, and asks it once for a storm of probes', async () => {
    let asked = 0;
    const app = await services.build('transactions', {
      readiness: {
        required: {
          files: () => {
            asked += 1;
            return new Promise<void>(() => undefined);
          },
        },
      },
    });
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => app.inject({ method: 'GET', url: '/readyz' })),
    );
    expect(Date.now() - started).toBeLessThan(CHECK_TIMEOUT_MS + 1500);
    for (const answer of answers) {
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toEqual({
        status: 'unavailable',
        checks: { database: 'ok', files: 'unavailable' },
      });
    }
    expect(asked).toBe(1);
  });
});
