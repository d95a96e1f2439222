import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CREATE_TRANSACTION,
  graphql,
  TRIGGER_TRANSACTION_EVENT,
  transactionInput,
} from '../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../support/data/transactions-suite.ts';
import { samplePdf, uploadThroughLink } from '../support/data/uploads.ts';

const suite = useTransactionsSuite();
/** Every test makes its own transaction and reads only that one; the organization around them is shared. */
let demo: EmptyTenant;

const investorDetails = {
  legalName: 'Grace Hopper',
  email: 'grace@example.com',
  address: '1 Navy Way, Arlington',
};
const accreditation = { basis: ['net_worth'], confirmed: true };

/** Uploads a W-9 through the link and answers the tax form data that names it. */
async function taxFormsWithW9(token: string): Promise<{ taxResidency: string; w9FileId: string }> {
  const upload = await uploadThroughLink(suite.app, {
    token,
    vulcanKey: 'tax_forms',
    field: 'w9FileId',
    file: { filename: 'W-9 Grace Hopper.pdf', content: await samplePdf() },
  });
  expect(upload.status).toBe(201);
  return { taxResidency: 'US', w9FileId: upload.body.file.id };
}

beforeAll(async () => {
  demo = await suite.emptyTenant();
});

async function api(query: string, variables: Record<string, unknown>) {
  const { body } = await graphql(suite.app, demo.apiKey, query, variables);
  expect(body.errors).toBeUndefined();
  return body.data!;
}

/** The sender signs a document through the API; what comes back is read loosely by each test. */
const SIGN_AS_SENDER = `mutation ($input: SignTransactionDocumentInput!) {
  signTransactionDocument(input: $input) { documentKey state }
}`;

const trigger = (transactionId: string, eventKey: string) =>
  api(TRIGGER_TRANSACTION_EVENT, { input: { transactionId, eventKey } });

async function recipient(method: 'GET' | 'PUT' | 'POST', path: string, payload?: Record<string, unknown>) {
  const response = await suite.app.inject({
    method,
    url: `/recipient/${path}`,
    ...(payload === undefined ? {} : { payload }),
    headers: { 'user-agent': 'flow-test/1.0' },
  });
  return { status: response.statusCode, body: response.json() };
}

async function create(): Promise<{ transactionId: string; transmitToken: string }> {
  const data = await api(CREATE_TRANSACTION, {
    input: transactionInput(demo, {
      noticeName: 'Grace Hopper',
      noticeEmail: `grace.${randomUUID().slice(0, 6)}@example.com`,
      inputData: { subscription_amount: { amount: { currency: 'USD', amount: 10_000_000 } } },
    }),
  });
  return data.createTransaction;
}

const READ = `query ($id: uuid!) { transaction(id: $id) {
  state isComplete completedAt
  transactionRecipients { vulcanKey entity { id } }
  transactionProcesses { key isComplete }
  transactionProcessRevisions { id number committedAt context transactionItems { id vulcanKey data completionPercentage } }
  transactionSignatureContainers { documentKey state transactionSignatures { state signedName transactionRecipient { vulcanKey } } }
  transactionSignatureFiles { file { mimeType signedUrl } }
  events { eventKey sourceStateKey targetStateKey actorType }
} }`;

describe('the example subscription, end to end', () => {
  it('goes from creation through filling, signing, a request for changes and countersignature to completion', async () => {
    const { transactionId: id, transmitToken: token } = await create();
    const read = async () => (await api(READ, { id })).transaction;
    expect((await read()).state).toBe('draft');

    expect(await trigger(id, 'send')).toEqual({
      triggerTransactionEvent: { sourceStateKey: 'draft', targetStateKey: 'in_progress' },
    });

    // The recipient reads what to fill in and sign.
    const view = await recipient('GET', token);
    expect(view.status).toBe(200);
    expect(view.body.transaction).toMatchObject({ id, state: 'in_progress', completedAt: null });
    expect(view.body.recipient).toMatchObject({ role: 'investor', name: 'Grace Hopper' });
    const [process] = view.body.processes;
    expect(process.items.map((i: { vulcanKey: string }) => i.vulcanKey)).toEqual([
      'investor_details',
      'tax_forms',
      'accreditation',
      'subscription_amount',
    ]);
    expect(process.items[3]).toMatchObject({
      data: { amount: { currency: 'USD', amount: 10_000_000 } },
      completionPercentage: 100,
    });
    expect(process.documents).toEqual([
      expect.objectContaining({
        key: 'subscription_agreement',
        signedBy: ['investor', 'countersigner'],
        signatures: [],
      }),
    ]);

    // Partial saves, then complete ones.
    const partial = await recipient('PUT', `${token}/items/investor_details`, {
      data: { legalName: 'Grace Hopper' },
    });
    expect(partial.body).toMatchObject({ completionPercentage: 33 });
    for (const [key, data] of [
      ['investor_details', investorDetails],
      ['tax_forms', await taxFormsWithW9(token)],
      ['accreditation', accreditation],
      ['subscription_amount', { amount: { currency: 'USD', amount: 25_000_000 } }],
    ] as const) {
      const saved = await recipient('PUT', `${token}/items/${key}`, { data });
      expect(saved.status).toBe(200);
      expect(saved.body.completionPercentage).toBe(100);
    }
    expect((await recipient('POST', `${token}/esign`, { act: 'consented' })).status).toBe(200);
    const signed = await recipient('POST', `${token}/documents/subscription_agreement/signatures`, {
      signedName: 'Grace Hopper',
      consent: true,
    });
    expect(signed.body).toEqual({ documentKey: 'subscription_agreement', state: 'PENDING' });
    const submitted = await recipient('POST', `${token}/processes/subscription/submit`);
    expect(submitted.body.event).toEqual({ sourceStateKey: 'in_progress', targetStateKey: 'in_review' });

    // The sponsor asks for changes: revision 2, carrying the data forward; revision 1 is kept as it was.
    const beforeChanges = await read();
    await trigger(id, 'request_changes');
    let t = await read();
    expect(t.state).toBe('changes_requested');
    expect(t.transactionProcessRevisions).toHaveLength(2);
    expect(t.transactionProcessRevisions[0]).toEqual(beforeChanges.transactionProcessRevisions[0]);
    expect(t.transactionProcessRevisions[1]).toMatchObject({
      number: 2,
      committedAt: null,
      context: { reason: 'request_changes' },
    });
    expect(t.transactionSignatureContainers.map((c: { state: string }) => c.state)).toEqual(['VOIDED']);

    await recipient('PUT', `${token}/items/subscription_amount`, {
      data: { amount: { currency: 'USD', amount: 50_000_000 } },
    });
    expect(
      (
        await recipient('POST', `${token}/documents/subscription_agreement/signatures`, {
          signedName: 'Grace Hopper',
          consent: true,
        })
      ).body.state,
    ).toBe('PENDING');
    expect((await recipient('POST', `${token}/processes/subscription/submit`)).body.event).toEqual({
      sourceStateKey: 'changes_requested',
      targetStateKey: 'in_review',
    });

    // Approval adds the sender as countersigner; its signature completes the document and the transaction.
    await trigger(id, 'approve');
    t = await read();
    expect(t.state).toBe('countersigning');
    expect(t.isComplete).toBe(false);
    expect(t.transactionRecipients.map((r: { vulcanKey: string }) => r.vulcanKey)).toEqual([
      'investor',
      'countersigner',
    ]);
    // A name longer than a signature may carry is refused, and signs nothing.
    const tooLong = await graphql(suite.app, demo.apiKey, SIGN_AS_SENDER, {
      input: {
        transactionId: id,
        documentKey: 'subscription_agreement',
        signedName: 'A'.repeat(201),
        consent: true,
      },
    });
    expect(tooLong.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'signedName',
    });
    const countersigned = await api(SIGN_AS_SENDER, {
      input: {
        transactionId: id,
        documentKey: 'subscription_agreement',
        signedName: 'Alex Morgan',
        consent: true,
      },
    });
    expect(countersigned.signTransactionDocument).toEqual({
      documentKey: 'subscription_agreement',
      state: 'COMPLETED',
    });
    t = await read();
    expect(t.isComplete).toBe(true);
    expect(t.completedAt).toEqual(expect.any(String));
    expect(t.transactionProcesses).toEqual([{ key: 'subscription', isComplete: true }]);
    expect(t.transactionSignatureContainers.map((c: { state: string }) => c.state)).toEqual([
      'VOIDED',
      'COMPLETED',
    ]);
    expect(t.transactionSignatureContainers[1].transactionSignatures).toEqual([
      { state: 'SIGNED', signedName: 'Grace Hopper', transactionRecipient: { vulcanKey: 'investor' } },
      { state: 'SIGNED', signedName: 'Alex Morgan', transactionRecipient: { vulcanKey: 'countersigner' } },
    ]);
    const [signedFile] = t.transactionSignatureFiles;
    const download = await suite.app.inject({
      method: 'GET',
      url: new URL(signedFile.file.signedUrl).pathname + new URL(signedFile.file.signedUrl).search,
    });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    expect(await trigger(id, 'countersign')).toEqual({
      triggerTransactionEvent: { sourceStateKey: 'countersigning', targetStateKey: 'completed' },
    });
    t = await read();
    expect(t.state).toBe('completed');
    expect(
      t.events.map((e: { eventKey: string; actorType: string; targetStateKey: string }) => [
        e.eventKey,
        e.actorType,
        e.targetStateKey,
      ]),
    ).toEqual([
      ['create', 'API_KEY', 'draft'],
      ['send', 'API_KEY', 'in_progress'],
      // The investor's consent, an act of theirs; carried into the second revision, not given again.
      ['consent.given.accreditation.confirmed', 'RECIPIENT', 'in_progress'],
      ['submit', 'RECIPIENT', 'in_review'],
      ['request_changes', 'API_KEY', 'changes_requested'],
      ['submit', 'RECIPIENT', 'in_review'],
      ['approve', 'API_KEY', 'countersigning'],
      ['countersign', 'API_KEY', 'completed'],
    ]);

    const outbox = await suite.db.query<{ type: string; state: string }>(
      `select type, payload->>'state' as state from outbox_events where transaction_id = $1 order by sequence`,
      [id],
    );
    expect(outbox).toEqual([
      { type: 'transaction.state_changed', state: 'draft' },
      { type: 'transaction.state_changed', state: 'in_progress' },
      { type: 'transaction.state_changed', state: 'in_review' },
      { type: 'transaction.state_changed', state: 'changes_requested' },
      { type: 'transaction.state_changed', state: 'in_review' },
      { type: 'transaction.state_changed', state: 'countersigning' },
      { type: 'transaction.completed', state: 'countersigning' },
      { type: 'transaction.state_changed', state: 'completed' },
    ]);
    const [signature] = await suite.db.query<{ ip: string; ua: string }>(
      `select s.ip_address as ip, s.user_agent as ua from transaction_signatures s
       join transaction_signature_containers c on c.id = s.transaction_signature_container_id
       where c.transaction_id = $1 order by s.signed_at limit 1`,
      [id],
    );
    expect(signature).toEqual({ ip: '127.0.0.1', ua: 'flow-test/1.0' });
  });
});

describe('recipient actions, refused', () => {
  it('reads an unknown or malformed link as not found', async () => {
    expect((await recipient('GET', randomUUID())).status).toBe(404);
    expect((await recipient('GET', 'not-a-token')).status).toBe(404);
    const answer = await recipient('PUT', `${randomUUID()}/items/tax_forms`, { data: {} });
    expect(answer.body.error.code).toBe('NOT_FOUND');
  });

  it('stops opening the transaction with a token once it is reset, and opens it with the new one', async () => {
    const { transactionId, transmitToken: old } = await create();
    const reset = await api(
      'mutation ($input: ResetTransmitTokenInput!) { resetTransmitToken(input: $input) { transactionId transmitToken } }',
      { input: { transactionId } },
    );
    const fresh: string = reset.resetTransmitToken.transmitToken;
    expect(fresh).not.toBe(old);
    const replaced = await recipient('GET', old);
    expect(replaced.status).toBe(410);
    expect(replaced.body.error.code).toBe('LINK_REVOKED');
    expect((await recipient('GET', fresh)).body.transaction.id).toBe(transactionId);
  });

  it('refuses item data that breaks its schema, and an unknown item, changing nothing', async () => {
    const { transmitToken: token } = await create();
    const bad = await recipient('PUT', `${token}/items/tax_forms`, {
      data: { taxResidency: 'usa', extra: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_USER_INPUT');
    expect(bad.body.error.message).toMatch(/taxResidency: must match pattern/);
    expect((await recipient('PUT', `${token}/items/nope`, { data: {} })).status).toBe(404);
    const view = await recipient('GET', token);
    expect(view.body.processes[0].items[1].data).toEqual({});
  });

  it('refuses a signature without consent or name, twice, or out of order, and changes after submission', async () => {
    const { transactionId: id, transmitToken: token } = await create();
    const sign = (body: Record<string, unknown>) =>
      recipient('POST', `${token}/documents/subscription_agreement/signatures`, body);
    expect((await sign({ signedName: 'Grace Hopper', consent: false })).body.error.code).toBe(
      'CONSENT_REQUIRED',
    );
    expect((await sign({ signedName: '  ', consent: true })).body.error.code).toBe('BAD_USER_INPUT');

    const early = await graphql(suite.app, demo.apiKey, SIGN_AS_SENDER, {
      input: {
        transactionId: id,
        documentKey: 'subscription_agreement',
        signedName: 'Alex Morgan',
        consent: true,
      },
    });
    expect(early.body.errors?.[0]?.extensions.code).toBe('CONFLICT');

    expect((await sign({ signedName: 'Grace Hopper', consent: true })).body.error.code).toBe(
      'ESIGN_CONSENT_REQUIRED',
    );
    expect((await recipient('POST', `${token}/esign`, { act: 'consented' })).status).toBe(200);
    expect((await sign({ signedName: 'Grace Hopper', consent: true })).status).toBe(200);
    const twice = await sign({ signedName: 'Grace Hopper', consent: true });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toMatch(/signed "subscription_agreement" already/);

    await trigger(id, 'send');
    const taxForms = await taxFormsWithW9(token);
    for (const [key, data] of [
      ['investor_details', investorDetails],
      ['tax_forms', taxForms],
      ['accreditation', accreditation],
      ['subscription_amount', { amount: { currency: 'USD', amount: 25_000_000 } }],
    ] as const) {
      expect((await recipient('PUT', `${token}/items/${key}`, { data })).status).toBe(200);
    }
    expect((await recipient('POST', `${token}/processes/subscription/submit`)).status).toBe(200);
    const late = await recipient('PUT', `${token}/items/tax_forms`, { data: taxForms });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('REVISION_SUBMITTED');
    const again = await recipient('POST', `${token}/processes/subscription/submit`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('REVISION_SUBMITTED');
  });
});
