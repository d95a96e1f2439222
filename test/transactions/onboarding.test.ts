import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { expect, it } from 'vitest';
import { secretProof } from '../../src/transactions/key-delivery/deliveries.ts';
import { keysIssueArgs, ROOT, runPortico } from '../support/cli.ts';
import { decryptRevealed, deliveryLinkIn, useKeyDeliveryApp } from '../support/data/key-delivery.ts';
import {
  CREATE_TRANSACTION,
  graphql,
  TRIGGER_TRANSACTION_EVENT,
  uniqueHandle,
} from '../support/data/transactions.ts';
import { samplePdf, uploadThroughLink } from '../support/data/uploads.ts';

// A brand-new organization, from nothing to a completed transaction, with nothing inserted by SQL: the operator's
// commands (org create with its sender entity, template import, key delivery), the key holder's steps on the
// delivery routes, and the integrator's and recipient's calls.

const ORIGIN = 'https://api.acme.example';
const service = useKeyDeliveryApp({ apiKeyCacheMs: 0 });

/** `portico <args> --json` on the test's database, mail written to the test's data dir; its JSON output. */
async function portico<T>(args: string[]): Promise<T> {
  const ran = await runPortico([...args, '--json'], {
    database: service.db,
    env: { PORTICO_DATA_DIR: service.dataDir, PORTICO_TRANSACTIONS_URL: ORIGIN },
  });
  expect(ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  return JSON.parse(ran.stdout) as T;
}

/** The text of the newest message written to the mail folder whose subject starts with `subject`. */
async function newestMail(subject: string): Promise<string> {
  const folder = join(service.dataDir, 'mail');
  for (const name of (await readdir(folder)).sort().reverse()) {
    const parsed = await simpleParser(await readFile(join(folder, name)));
    if (parsed.subject?.startsWith(subject)) return parsed.text ?? '';
  }
  throw new Error(`no mail "${subject}…"`);
}

it('onboards an organization with nothing inserted by SQL: org create, template import, key delivered and revealed, a transaction created and completed', async () => {
  const handle = uniqueHandle('onboard');
  const org = await portico<{
    id: string;
    senderEntity: { id: string; name: string; email: string; type: string };
  }>([
    'org',
    'create',
    '--handle',
    handle,
    '--name',
    'Acme Capital',
    '--legal-name',
    'Acme Capital Fund I, L.P.',
    '--email',
    'Operations@Acme.example',
    '--entity-type',
    'fund',
  ]);
  expect(org.senderEntity).toMatchObject({
    name: 'Acme Capital Fund I, L.P.',
    email: 'operations@acme.example',
    type: 'fund',
  });
  const entities = await portico<{ id: string }[]>(['entities', 'list', '--org', handle]);
  expect(entities.map((entity) => entity.id)).toEqual([org.senderEntity.id]);

  const template = await portico<{ id: string }>([
    'templates',
    'import',
    join(ROOT, 'templates/examples/subscription.yaml'),
    '--org',
    handle,
  ]);

  await portico(keysIssueArgs(handle, { environment: 'staging', emails: ['ada@acme.example'] }));
  const delivered = deliveryLinkIn(await newestMail('Your Portico API key'));
  const link = { linkId: delivered.linkId, proof: secretProof(delivered.secret) };
  const delivery = (route: string, body: object) =>
    service.app.inject({
      method: 'POST',
      url: `/key-delivery/api/${route}`,
      headers: { 'x-forwarded-proto': 'https' },
      payload: { ...link, ...body },
    });
  expect((await delivery('code', { email: 'ada@acme.example' })).statusCode).toBe(202);
  const code = /\b(\d{8})\b/.exec(await newestMail('Your code'))?.[1] ?? '';
  const revealed = await delivery('reveal', { email: 'ada@acme.example', code });
  const key = decryptRevealed(delivered, revealed.json<{ ciphertext: string; iv: string }>());

  const api = async (query: string, variables: Record<string, unknown>) => {
    const { body } = await graphql(service.app, key, query, variables);
    expect(body.errors).toBeUndefined();
    return body.data ?? {};
  };
  const created = (
    await api(CREATE_TRANSACTION, {
      input: {
        templateId: template.id,
        senderEntityId: org.senderEntity.id,
        noticeName: 'Grace Hopper',
        noticeEmail: 'grace@example.com',
        inputData: { subscription_amount: { amount: { currency: 'USD', amount: 25_000_000 } } },
      },
    })
  ).createTransaction as { transactionId: string; transmitToken: string };
  const id = created.transactionId;
  const recipient = (method: 'PUT' | 'POST', path: string, payload: object) =>
    service.app.inject({ method, url: `/recipient/${created.transmitToken}${path}`, payload });

  await api(TRIGGER_TRANSACTION_EVENT, { input: { transactionId: id, eventKey: 'send' } });
  const w9 = await uploadThroughLink(service.app, {
    token: created.transmitToken,
    vulcanKey: 'tax_forms',
    field: 'w9FileId',
    file: { filename: 'W-9.pdf', content: await samplePdf() },
  });
  expect(w9.status).toBe(201);
  for (const [item, data] of Object.entries({
    investor_details: {
      legalName: 'Grace Hopper',
      email: 'grace@example.com',
      address: '1 Navy Way, Arlington',
    },
    tax_forms: { taxResidency: 'US', w9FileId: w9.body.file.id },
    accreditation: { basis: ['income'], confirmed: true },
    subscription_amount: { amount: { currency: 'USD', amount: 25_000_000 } },
  })) {
    expect((await recipient('PUT', `/items/${item}`, { data })).statusCode).toBe(200);
  }
  expect((await recipient('POST', '/esign', { act: 'consented' })).statusCode).toBe(200);
  await recipient('POST', '/documents/subscription_agreement/signatures', {
    signedName: 'Grace Hopper',
    consent: true,
  });
  expect((await recipient('POST', '/processes/subscription/submit', {})).statusCode).toBe(200);
  await api(TRIGGER_TRANSACTION_EVENT, { input: { transactionId: id, eventKey: 'approve' } });
  await api(
    `mutation ($input: SignTransactionDocumentInput!) { signTransactionDocument(input: $input) { state } }`,
    {
      input: {
        transactionId: id,
        documentKey: 'subscription_agreement',
        signedName: 'Alex Morgan',
        consent: true,
      },
    },
  );
  const read = await api('query ($id: uuid!) { transaction(id: $id) { isComplete } }', { id });
  expect(read).toMatchObject({ transaction: { isComplete: true } });
});
