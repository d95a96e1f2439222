import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { answerProblem } from '../support/documented-answers.ts';
import { useServiceApps, type Service } from '../support/data/service-apps.ts';

const ALLOWED = 'https://app.example.com';

const services = useServiceApps();

function appOf(service: Service, corsOrigins?: string[]): Promise<FastifyInstance> {
  return services.build(service, { corsOrigins });
}

/** The service's API address, and how a browser app would call it with a key. */
const API = {
  transactions: {
    url: '/beta',
    call: (app: FastifyInstance, headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/beta',
        headers: { authorization: `Bearer ${services.organization.apiKey}`, ...headers },
        payload: { query: '{ __typename }' },
      }),
  },
  portfolio: {
    url: '/v1/external/companies',
    call: (app: FastifyInstance, headers: Record<string, string>) =>
      app.inject({
        method: 'GET',
        url: '/v1/external/companies',
        headers: { authorization: services.portfolio.apiKey, ...headers },
      }),
  },
} as const;

function preflight(app: FastifyInstance, service: Service, origin: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'OPTIONS',
    url: API[service].url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

function corsHeaders(response: LightMyRequestResponse): string[] {
  return Object.keys(response.headers).filter((name) => name.startsWith('access-control-'));
}

const list = (value: unknown) =>
  String(value)
    .split(',')
    .map((item) => item.trim().toLowerCase());

describe.each(['transactions', 'portfolio'] as const)('CORS on the %s service', (service) => {
  it('answers a preflight from an allowed origin with 204, the origin, its methods and headers, and no credentials', async () => {
    const app = await appOf(service, [ALLOWED]);
    const response = await preflight(app, service, ALLOWED);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(list(response.headers['access-control-allow-methods'])).toEqual(
      expect.arrayContaining(['get', 'post']),
    );
    expect(list(response.headers['access-control-allow-headers'])).toEqual(
      expect.arrayContaining(['authorization', 'content-type']),
    );
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    expect(response.headers['access-control-max-age']).toBe('600');
    expect(list(response.headers.vary)).toContain('origin');
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('lets an allowed origin read answers and their request id, errors included', async () => {
    const app = await appOf(service, [ALLOWED]);
    const ok = await API[service].call(app, { origin: ALLOWED });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(list(ok.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining([
        'x-request-id',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'retry-after',
      ]),
    );
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();

    const refused = await API[service].call(app, { origin: ALLOWED, authorization: 'nonsense' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('gives an origin that is not allowed no Access-Control-Allow-Origin, on preflights and answers', async () => {
    const app = await appOf(service, [ALLOWED]);
    for (const origin of [
      'https://evil.example',
      'https://app.example.com.evil.example',
      'http://app.example.com',
      'null',
    ]) {
      expect(
        (await preflight(app, service, origin)).headers['access-control-allow-origin'],
        origin,
      ).toBeUndefined();
      const answer = await API[service].call(app, { origin });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });

  it('sends no CORS headers at all when no origins are configured', async () => {
    const app = await appOf(service);
    const answer = await API[service].call(app, { origin: ALLOWED });
    expect(answer.statusCode).toBe(200);
    expect(corsHeaders(answer)).toEqual([]);

    const attempt = await preflight(app, service, ALLOWED);
    expect(corsHeaders(attempt)).toEqual([]);
    expect(attempt.statusCode).toBeGreaterThanOrEqual(400);
    expect(
      answerProblem(
        { status: attempt.statusCode, headers: attempt.headers, body: attempt.body },
        { shapes: ['rest'] },
      ),
    ).toBeUndefined();
  });

  it('answers an OPTIONS request that is not a preflight in the JSON error shape, with or without CORS', async () => {
    for (const origins of [[ALLOWED], undefined]) {
      const app = await appOf(service, origins);
      for (const headers of [
        {},
        { origin: ALLOWED },
        { 'access-control-request-method': 'POST' },
        // Both named, one empty: the plugin would call that an invalid preflight, in plain text.
        { origin: ALLOWED, 'access-control-request-method': '' },
        { origin: '', 'access-control-request-method': 'POST' },
      ]) {
        const response = await app.inject({ method: 'OPTIONS', url: API[service].url, headers });
        const label = `${JSON.stringify(headers)} with CORS ${origins ? 'on' : 'off'}`;
        expect(response.statusCode, label).toBe(service === 'portfolio' ? 405 : 404);
        expect(
          answerProblem(
            { status: response.statusCode, headers: response.headers, body: response.body },
            { shapes: ['rest'] },
          ),
          label,
        ).toBeUndefined();
        if (service === 'portfolio') {
          expect(response.headers.allow).toBe('GET, HEAD');
          expect(response.json().error.code).toBe('METHOD_NOT_ALLOWED');
        }
      }
    }
  });
});
