// How an evidence bundle leaves Portico over HTTP: the console's routes of a transaction and of a closing (anyone
// of the team, streamed as a zip that `verify` passes; another organization's not found) and the API's signed
// link (`genEvidenceBundleLink`), which downloads it without a key until it expires and which no file link opens.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyBundle } from '../../../src/transactions/evidence/verify-bundle.ts';
import { api, consoleApiWorld, signedIn } from '../../support/data/console-api.ts';
import { createPerson } from '../../support/data/dashboard.ts';
import { closingOf, useTempFolder, withEvidence } from '../../support/data/sealed-documents.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { graphql } from '../../support/data/transactions.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { loadSealCredential } from '../../../src/transactions/evidence/seal-credential.ts';

const world = madeBeforeAll('the console', consoleApiWorld);
const folder = useTempFolder('portico-bundle-routes-');

const GEN_LINK = `mutation ($input: GenEvidenceBundleLinkInput!) {
  genEvidenceBundleLink(input: $input) { url expiresAt transactionId certificateMade }
}`;

/** Two completed transactions of one organization with their evidence, in a closing; a viewer of it. */
const data = madeBeforeAll('the evidence', async () => {
  const credential = await loadSealCredential({ dataDir: join(folder.path(), 'data') });
  const story = await organizationStory(world.db, world.files, { transactions: ['complete', 'complete'] });
  for (const transaction of story.transactions) {
    await withEvidence(
      world.db,
      world.files,
      credential,
      { id: transaction.id, organizationId: story.organizationId },
      { certificate: 'made' },
    );
  }
  const closingId = await closingOf(
    world.db,
    story,
    story.transactions.map((transaction) => transaction.id),
  );
  const tenant = { kind: 'organization' as const, id: story.organizationId };
  const viewer = await signedIn(world, await createPerson(world.db, { tenant, role: 'viewer' }));
  const other = await organizationStory(world.db, world.files, { transactions: ['complete'] });
  return { story, closingId, viewer, other };
});

let saved = 0;
/** The bytes of a download saved to a file of the test's folder, and what `verify` says of it. */
async function verified(bytes: Buffer | undefined) {
  saved += 1;
  const path = join(folder.path(), `bundle-${String(saved)}.zip`);
  await writeFile(path, bytes ?? Buffer.alloc(0));
  return verifyBundle(path);
}

describe('evidence bundles over HTTP', () => {
  it("streams a transaction's bundle to a viewer as a zip attachment that verify passes", async () => {
    const { story, viewer } = data;
    const response = await viewer.get(api(`/transactions/${story.transactionId}/evidence`));
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'application/zip',
      'cache-control': 'private, no-store',
    });
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="evidence-.+\.zip"/);
    expect(await verified(response.bytes)).toMatchObject({ ok: true, transactions: 1 });

    const head = await viewer.request('HEAD', api(`/transactions/${story.transactionId}/evidence`));
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it("streams a closing's bundles, a folder per transaction, that verify passes", async () => {
    const response = await data.viewer.get(api(`/closings/${data.closingId}/evidence`));
    expect(response.status).toBe(200);
    expect(await verified(response.bytes)).toMatchObject({ ok: true, kind: 'closing', transactions: 2 });
  });

  it("answers NOT_FOUND for another organization's transaction, and 401 to no one signed in", async () => {
    const theirs = await data.viewer.get(api(`/transactions/${data.other.transactionId}/evidence`));
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const anonymous = await world.app.inject({
      method: 'GET',
      url: api(`/transactions/${data.story.transactionId}/evidence`),
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('gives an API caller a signed link that downloads the bundle without a key, and refuses it changed', async () => {
    const { story } = data;
    const linked = await graphql(world.app, story.apiKey, GEN_LINK, {
      input: { transactionId: story.transactionId, expiresInSeconds: 600 },
    });
    expect(linked.body.errors).toBeUndefined();
    const link = linked.body.data?.genEvidenceBundleLink as {
      url: string;
      transactionId: string;
      certificateMade: boolean;
    };
    expect(link).toMatchObject({ transactionId: story.transactionId, certificateMade: true });
    const url = new URL(link.url);
    expect(url.pathname).toBe(`/evidence/${story.transactionId}`);

    const download = await world.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/zip');
    expect(await verified(download.rawPayload)).toMatchObject({ ok: true, transactions: 1 });

    const other = story.transactions[1]?.id ?? '';
    const moved = await world.app.inject({ method: 'GET', url: `/evidence/${other}${url.search}` });
    expect(moved.statusCode).toBe(403);
    expect(moved.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it("refuses to link another organization's transaction", async () => {
    const theirs = await graphql(world.app, data.story.apiKey, GEN_LINK, {
      input: { transactionId: data.other.transactionId },
    });
    expect(theirs.body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
  });
});
