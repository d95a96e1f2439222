import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStore } from '../../../src/files/file-store.ts';
import { createS3FileStore } from '../../../src/files/s3-file-store.ts';
import { parseResponse, rawRequest, streamBody } from '../../support/peers/raw-socket.ts';
import { pdfText } from '../../support/pdf-text.ts';
import { timelineOf } from '../../../src/transactions/history/timeline.ts';
import { addReviewComment, resolveReviewComment } from '../../../src/transactions/review/comments.ts';
import { importTemplateSource } from '../../../src/transactions/templates/templates.ts';
import { createPerson } from '../../support/data/dashboard.ts';
import { startS3Server, type TestS3Server } from '../../support/peers/s3.ts';
import { listenHttps, testTls } from '../../support/peers/tls-listener.ts';
import {
  acceptDisclosure,
  CREATE_TRANSACTION,
  graphql,
  approveAndCountersign,
  TRIGGER_TRANSACTION_EVENT,
  transactionInput,
} from '../../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../../support/data/transactions-suite.ts';
import {
  EXECUTABLE,
  multipartBody,
  samplePdf,
  uploadThroughLink,
  type FilePart,
} from '../../support/data/uploads.ts';

const suite = useTransactionsSuite();
let tenant: EmptyTenant;
let s3: TestS3Server;

beforeAll(async () => {
  tenant = await suite.emptyTenant();
  s3 = await startS3Server();
});
afterAll(() => s3.close());

/** The item whose data gives a consent (its `confirmed`). */
const CONSENT_ITEM = 'accreditation';

const COMPLETE_DATA = {
  investor_details: { legalName: 'Grace Hopper', email: 'grace@example.com', address: '1 Navy Way' },
  accreditation: { basis: ['income'], confirmed: true },
  subscription_amount: { amount: { currency: 'USD', amount: 25_000_000 } },
};

/** A store that remembers every key put into it, so a test can check nothing was left behind. */
function recordingStore(inner: FileStore, onPut?: () => Promise<void>): FileStore & { keys: string[] } {
  const keys: string[] = [];
  return {
    keys,
    ...inner,
    async put(key, content, options) {
      keys.push(key);
      await inner.put(key, content, options);
      await onPut?.();
    },
  };
}

async function create(app: FastifyInstance = suite.app) {
  const { body } = await graphql(app, tenant.apiKey, CREATE_TRANSACTION, {
    input: transactionInput(tenant, { inputData: {} }),
  });
  expect(body.errors).toBeUndefined();
  return body.data!.createTransaction as { transactionId: string; transmitToken: string };
}

async function recipient(
  app: FastifyInstance,
  method: 'GET' | 'PUT' | 'POST',
  path: string,
  payload?: Record<string, unknown>,
) {
  const response = await app.inject({ method, url: `/recipient/${path}`, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() };
}

/**
 * Answers every item of the subscription through its link (the W-9 uploaded) and signs as the investor; returns
 * the consents the answers gave, with when.
 */
async function fillAndSign(
  transmitToken: string,
): Promise<{ consents: Record<string, string>; w9FileId: string }> {
  let consents: Record<string, string> = {};
  for (const [key, data] of Object.entries(COMPLETE_DATA)) {
    const saved = await recipient(suite.app, 'PUT', `${transmitToken}/items/${key}`, { data });
    if (key === CONSENT_ITEM) consents = saved.body.consents;
  }
  const upload = await uploadW9(suite.app, transmitToken);
  await recipient(suite.app, 'PUT', `${transmitToken}/items/tax_forms`, {
    data: { taxResidency: 'US', w9FileId: upload.body.file.id },
  });
  await acceptDisclosure(suite.app, transmitToken);
  await recipient(suite.app, 'POST', `${transmitToken}/documents/subscription_agreement/signatures`, {
    signedName: 'Grace Hopper',
    consent: true,
  });
  return { consents, w9FileId: upload.body.file.id as string };
}

async function fileRows(transactionId: string): Promise<number> {
  const [row] = await suite.db.query<{ count: number }>(
    `select count(*)::int as count from transaction_files where transaction_id = $1`,
    [transactionId],
  );
  return row?.count ?? -1;
}

const w9 = async (file: Partial<FilePart> = {}): Promise<FilePart> => ({
  filename: 'W-9.pdf',
  content: await samplePdf(),
  ...file,
});

/** Uploads a W-9 (`file` changes it) through the link `token` to the tax form's `field` (its W-9 field). */
async function uploadW9(
  app: FastifyInstance,
  token: string,
  file: Partial<FilePart> = {},
  field = 'w9FileId',
) {
  return uploadThroughLink(app, { token, vulcanKey: 'tax_forms', field, file: await w9(file) });
}

describe.each([
  { backend: 'the data directory', store: () => suite.files },
  { backend: 'an S3-compatible server (s3rver)', store: () => createS3FileStore(s3.storeOptions()) },
])('uploads stored in $backend', ({ store }) => {
  let app: FastifyInstance;
  let files: FileStore & { keys: string[] };
  beforeAll(async () => {
    files = recordingStore(store());
    app = await suite.buildApp({ files });
  });

  it('stores an uploaded W-9 as a File and a TransactionFile of the item, readable and downloadable through the API', async () => {
    const { transactionId, transmitToken } = await create(app);
    const content = await samplePdf('Form W-9: Grace Hopper');
    const upload = await uploadW9(app, transmitToken, {
      filename: 'W-9 Grace Hopper.pdf',
      content,
      contentType: 'application/octet-stream',
    });
    expect(upload.status).toBe(201);
    expect(upload.body.file).toMatchObject({
      field: 'w9FileId',
      originalFilename: 'W-9 Grace Hopper.pdf',
      mimeType: 'application/pdf',
      byteSize: content.byteLength,
    });
    // The item names the file, and its completion counts it (1 of 2 required fields).
    expect(upload.body.item).toMatchObject({
      data: { w9FileId: upload.body.file.id },
      completionPercentage: 50,
    });

    const { body } = await graphql(
      app,
      tenant.apiKey,
      `
        query ($id: uuid!) {
          transaction(id: $id) {
            transactionFiles {
              id
              vulcanKey
              file {
                id
                mimeType
                extension
                originalFilename
                uploadedAt
              }
            }
          }
        }
      `,
      { id: transactionId },
    );
    const [transactionFile] = body.data!.transaction.transactionFiles;
    expect(transactionFile).toMatchObject({
      vulcanKey: 'tax_forms.w9FileId',
      file: {
        id: upload.body.file.id,
        mimeType: 'application/pdf',
        extension: 'pdf',
        originalFilename: 'W-9 Grace Hopper.pdf',
      },
    });
    const link = await graphql(
      app,
      tenant.apiKey,
      `
        mutation ($input: GenTransactionFileLinkInput!) {
          genTransactionFileLink(input: $input) {
            url
          }
        }
      `,
      { input: { transactionFileId: transactionFile.id } },
    );
    const url = new URL(link.body.data!.genTransactionFileLink.url);
    const download = await app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(Buffer.compare(download.rawPayload, content)).toBe(0);
  });

  it('removes the stored object when the revision is submitted while the file streams in, and writes no row', async () => {
    const { transactionId, transmitToken } = await create(app);
    const fill = async () => {
      for (const [key, data] of Object.entries(COMPLETE_DATA)) {
        await recipient(app, 'PUT', `${transmitToken}/items/${key}`, { data });
      }
    };
    await fill();
    const first = await uploadW9(app, transmitToken);
    await recipient(app, 'PUT', `${transmitToken}/items/tax_forms`, {
      data: { taxResidency: 'US', w9FileId: first.body.file.id },
    });
    await acceptDisclosure(app, transmitToken);
    await recipient(app, 'POST', `${transmitToken}/documents/subscription_agreement/signatures`, {
      signedName: 'Grace Hopper',
      consent: true,
    });
    // The recipient submits on another device just as this upload is stored.
    const racing = recordingStore(store(), async () => {
      expect((await recipient(app, 'POST', `${transmitToken}/processes/subscription/submit`)).status).toBe(
        200,
      );
    });
    const racingApp = await suite.buildApp({ files: racing });
    const refused = await uploadW9(racingApp, transmitToken);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('REVISION_SUBMITTED');
    expect(racing.keys).toHaveLength(1);
    expect(await racing.open(racing.keys[0]!)).toBeUndefined();
    expect(await fileRows(transactionId)).toBe(1);
  });
});

describe('uploads refused, with nothing written', () => {
  let app: FastifyInstance;
  let files: FileStore & { keys: string[] };
  beforeAll(async () => {
    files = recordingStore(suite.files);
    app = await suite.buildApp({ files, uploadMaxBytes: 64 * 1024 });
  });

  const cases: [
    string,
    () => Partial<FilePart> | Promise<Partial<FilePart>>,
    number,
    string,
    Record<string, unknown>?,
  ][] = [
    [
      'a file over the limit, while it streams',
      async () => ({ content: Buffer.concat([await samplePdf(), Buffer.alloc(64 * 1024)]) }),
      413,
      'FILE_TOO_LARGE',
      { maxBytes: 64 * 1024 },
    ],
    [
      'a ".pdf" that is an executable',
      () => ({ content: EXECUTABLE }),
      415,
      'FILE_TYPE_NOT_ALLOWED',
      { detected: 'application/x-msdownload', accept: ['application/pdf', 'image/png', 'image/jpeg'] },
    ],
    ['an empty file', () => ({ content: Buffer.alloc(0) }), 400, 'FILE_EMPTY'],
    ['a name with a path', () => ({ filename: '../../etc/W-9.pdf' }), 400, 'FILENAME_INVALID'],
    ['a name with a control character', () => ({ filename: 'W-9\u0007.pdf' }), 400, 'FILENAME_INVALID'],
    [
      'a name that turns its extension around',
      () => ({ filename: 'W-9\u202Efdp.exe' }),
      400,
      'FILENAME_INVALID',
    ],
  ];
  it.each(cases)('refuses %s', async (_what, file, status, code, details) => {
    const { transactionId, transmitToken } = await create(app);
    const before = files.keys.length;
    const refused = await uploadW9(app, transmitToken, await file());
    expect(refused.status).toBe(status);
    expect(refused.body.error).toMatchObject({ code, ...(details ? { details } : {}) });
    expect(files.keys.length).toBe(before);
    expect(await fileRows(transactionId)).toBe(0);
  });

  const malformed: [string, (body: { payload: Buffer; headers: Record<string, string> }) => typeof body][] = [
    [
      'names no boundary in its Content-Type',
      ({ payload }) => ({ payload, headers: { 'content-type': 'multipart/form-data' } }),
    ],
    [
      'is split by another boundary than its Content-Type names',
      ({ payload }) => ({
        payload,
        headers: { 'content-type': 'multipart/form-data; boundary=----not-the-one-in-the-body' },
      }),
    ],
    [
      'ends before its closing boundary',
      ({ payload, headers }) => ({ payload: payload.subarray(0, payload.length - 200), headers }),
    ],
  ];
  /** Posts a multipart body as it is to the W-9 field of the link `token`. */
  const postToW9 = (token: string, body: { payload: Buffer; headers: Record<string, string> }) =>
    app.inject({ method: 'POST', url: `/recipient/${token}/items/tax_forms/files/w9FileId`, ...body });

  it.each(malformed)('refuses with MULTIPART_INVALID a multipart body that %s', async (_what, spoil) => {
    const { transactionId, transmitToken } = await create(app);
    const before = files.keys.length;
    const response = await postToW9(transmitToken, spoil(multipartBody(await w9())));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'MULTIPART_INVALID',
      message: expect.stringContaining('boundary=') as unknown,
      requestId: response.headers['x-request-id'],
    });
    expect(files.keys.length).toBe(before);
    expect(await fileRows(transactionId)).toBe(0);
  });

  it.each(['upload', 'constructor'])(
    'refuses a file sent in a part named %j, saying which part to send it in',
    async (name) => {
      const { transactionId, transmitToken } = await create(app);
      const response = await uploadW9(app, transmitToken, { name });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'BAD_USER_INPUT',
        message: 'send the file in a part named "file"',
        details: { field: 'file' },
      });
      expect(await fileRows(transactionId)).toBe(0);
    },
  );

  it.each([
    ['a form field', 'text/plain', 'a note'],
    ['a form field declared JSON that is not', 'application/json', '{not json'],
  ])(
    'refuses %s sent before the file, saying to send the file alone, and stores nothing',
    async (_what, type, value) => {
      const { transactionId, transmitToken } = await create(app);
      const before = files.keys.length;
      const { payload, headers } = multipartBody(await w9());
      const boundary = /boundary=(.+)$/.exec(headers['content-type'] ?? '')?.[1] ?? '';
      const field = `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\nContent-Type: ${type}\r\n\r\n${value}\r\n`;
      const response = await postToW9(transmitToken, {
        payload: Buffer.concat([Buffer.from(field), payload]),
        headers,
      });
      expect(response.statusCode).toBe(413);
      expect(response.json().error).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: 'send the file alone, in one part named "file": this upload takes no other part or field',
        details: { field: 'file' },
      });
      expect(files.keys.length).toBe(before);
      expect(await fileRows(transactionId)).toBe(0);
    },
  );

  it('answers a file over the limit with 413 and Connection: close at the limit, and reads no more of its body', async () => {
    const { transactionId, transmitToken } = await create(app);
    const before = files.keys.length;
    const tls = await testTls();
    const { port } = await listenHttps(await suite.buildApp({ files, uploadMaxBytes: 64 * 1024, tls }));
    const boundary = `----portico${randomBytes(8).toString('hex')}`;
    const partHead = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="W-9.pdf"\r\n` +
        'Content-Type: application/pdf\r\n\r\n',
    );
    const closing = Buffer.from(`\r\n--${boundary}--\r\n`);
    const chunk = Buffer.alloc(64 * 1024);
    const chunks = 640; // a 40 MiB file
    const total = partHead.length + chunks * chunk.length + closing.length;
    function* rest(): Generator<Buffer> {
      for (let sent = 0; sent < chunks; sent += 1) yield chunk;
      yield closing;
    }
    const head = Buffer.concat([
      rawRequest({
        method: 'POST',
        target: `/recipient/${transmitToken}/items/tax_forms/files/w9FileId`,
        headers: [
          ['Content-Type', `multipart/form-data; boundary=${boundary}`],
          ['Content-Length', String(total)],
        ],
        // The client would keep the connection: closing it is the server's decision.
        close: false,
      }),
      partHead,
    ]);

    const result = await streamBody({ port, ca: tls.cert, head, body: rest(), timeoutMs: 30_000 });
    const answer = parseResponse(result.received);
    expect(answer?.status).toBe(413);
    expect(answer?.headers.connection).toBe('close');
    expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({
      error: { code: 'FILE_TOO_LARGE', details: { maxBytes: 64 * 1024 } },
    });
    expect(result.closedByServer).toBe(true);
    // The server stopped reading: what the client could send filled the sockets' buffers, far from the whole body.
    expect(result.sent).toBeLessThan(total / 2);
    expect(files.keys.length).toBe(before);
    expect(await fileRows(transactionId)).toBe(0);
  });

  it('refuses an upload to a field that is not an upload field, or without a multipart body', async () => {
    const { transmitToken } = await create(app);
    const wrongField = await uploadW9(app, transmitToken, {}, 'taxResidency');
    expect(wrongField.status).toBe(404);
    const json = await recipient(app, 'POST', `${transmitToken}/items/tax_forms/files/w9FileId`, {
      file: 'x',
    });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses item data naming a file that was not uploaded for that field', async () => {
    const { transmitToken } = await create(app);
    const other = await create(app);
    const elsewhere = await uploadW9(app, other.transmitToken);
    for (const w9FileId of [randomUUID(), elsewhere.body.file.id]) {
      const saved = await recipient(app, 'PUT', `${transmitToken}/items/tax_forms`, {
        data: { taxResidency: 'US', w9FileId },
      });
      expect(saved.status).toBe(400);
      expect(saved.body.error.message).toMatch(/w9FileId: is not a file uploaded for this field/);
    }
  });

  it('refuses to set an upload field through inputData when creating a transaction', async () => {
    const { body } = await graphql(app, tenant.apiKey, CREATE_TRANSACTION, {
      input: transactionInput(tenant, { inputData: { tax_forms: { w9FileId: randomUUID() } } }),
    });
    expect(body.errors?.[0]?.message).toMatch(
      /inputData\.tax_forms\.w9FileId: is answered by the recipient's upload/,
    );
  });
});

describe('the recipient link, refused', () => {
  it('says a reset link was replaced and an expired link expired, for every route', async () => {
    const { transactionId, transmitToken } = await create();
    await graphql(
      suite.app,
      tenant.apiKey,
      'mutation ($input: ResetTransmitTokenInput!) { resetTransmitToken(input: $input) { transmitToken } }',
      { input: { transactionId } },
    );
    for (const path of ['', '/items/tax_forms', '/documents/subscription_agreement/preview']) {
      const answer = await suite.app.inject({
        method: path.startsWith('/items') ? 'PUT' : 'GET',
        url: `/recipient/${transmitToken}${path}`,
        ...(path.startsWith('/items') ? { payload: { data: {} } } : {}),
      });
      expect(answer.statusCode).toBe(410);
      expect(answer.json().error.code).toBe('LINK_REVOKED');
    }
    const expiring = await create();
    await suite.db.query(
      `update transactions set transmit_token_expires_at = clock_timestamp() - interval '1 second' where id = $1`,
      [expiring.transactionId],
    );
    const expired = await recipient(suite.app, 'GET', expiring.transmitToken);
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('LINK_EXPIRED');
  });

  it('gives a link 90 days by default', async () => {
    const { transmitToken } = await create();
    const view = await recipient(suite.app, 'GET', transmitToken);
    const days = (Date.parse(view.body.link.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
  });
});

describe('signing and submitting, refused', () => {
  it('refuses a signature without consent, and a submit before the items are complete and the documents signed', async () => {
    const { transmitToken } = await create();
    const unconsented = await recipient(
      suite.app,
      'POST',
      `${transmitToken}/documents/subscription_agreement/signatures`,
      {
        signedName: 'Grace Hopper',
        consent: false,
      },
    );
    expect(unconsented.status).toBe(400);
    expect(unconsented.body.error.code).toBe('CONSENT_REQUIRED');
    const early = await recipient(suite.app, 'POST', `${transmitToken}/processes/subscription/submit`);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({
      code: 'REVISION_INCOMPLETE',
      details: {
        items: ['investor_details', 'tax_forms', 'accreditation', 'subscription_amount'],
        documents: ['subscription_agreement'],
      },
    });
  });

  it('takes only the JSON true as consent to sign: "true", 1 and [true] are refused with the field named', async () => {
    const { transmitToken } = await create();
    for (const consent of ['true', 1, [true]]) {
      const answer = await recipient(
        suite.app,
        'POST',
        `${transmitToken}/documents/subscription_agreement/signatures`,
        { signedName: 'Grace Hopper', consent },
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain('"consent"');
    }
    const view = await recipient(suite.app, 'GET', transmitToken);
    expect(JSON.stringify(view.body)).not.toContain('Grace Hopper');
  });

  it('shows the sponsor message of a request for changes, and what was submitted before', async () => {
    const { transactionId, transmitToken } = await create();
    const { w9FileId } = await fillAndSign(transmitToken);
    const trigger = (input: Record<string, unknown>) =>
      graphql(suite.app, tenant.apiKey, TRIGGER_TRANSACTION_EVENT, { input: { transactionId, ...input } });
    await trigger({ eventKey: 'send' });
    expect(
      (await recipient(suite.app, 'POST', `${transmitToken}/processes/subscription/submit`)).status,
    ).toBe(200);
    const tooLong = await trigger({ eventKey: 'request_changes', message: 'x'.repeat(2001) });
    expect(tooLong.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'message' });
    await trigger({ eventKey: 'request_changes', message: '  Please subscribe 500,000.00 instead.  ' });

    const view = await recipient(suite.app, 'GET', transmitToken);
    const [process] = view.body.processes;
    expect(process.revision).toMatchObject({
      number: 2,
      committedAt: null,
      changesRequested: { message: 'Please subscribe 500,000.00 instead.' },
    });
    const amount = process.items.find(
      (item: { vulcanKey: string }) => item.vulcanKey === 'subscription_amount',
    );
    expect(amount.previousData).toEqual(COMPLETE_DATA.subscription_amount);
    expect(process.documents[0]).toMatchObject({ canSign: true, state: 'PENDING', signatures: [] });
    const taxForms = process.items.find((item: { vulcanKey: string }) => item.vulcanKey === 'tax_forms');
    expect(taxForms.files).toEqual([expect.objectContaining({ id: w9FileId, field: 'w9FileId' })]);
    expect(taxForms.uploads).toEqual({
      w9FileId: { accept: ['application/pdf', 'image/png', 'image/jpeg'], maxBytes: 10 * 1024 * 1024 },
    });
    const preview = await suite.app.inject({ method: 'GET', url: process.documents[0].previewUrl });
    expect(preview.statusCode).toBe(200);
    expect(preview.headers['content-type']).toBe('application/pdf');
    expect(preview.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe("the recipient's acts and the reviewer's comments", () => {
  it("records what the recipient does through their link, opening the page once in half an hour, with each request's id", async () => {
    const { transactionId, transmitToken } = await create();
    const opened = await suite.app.inject({ method: 'GET', url: `/recipient/${transmitToken}` });
    await recipient(suite.app, 'GET', transmitToken);
    await fillAndSign(transmitToken);
    expect(
      (await recipient(suite.app, 'POST', `${transmitToken}/processes/subscription/submit`)).status,
    ).toBe(200);
    const timeline = await timelineOf(suite.db, {
      organizationId: tenant.organizationId,
      transactionId,
      kinds: ['recipient'],
    });
    const acts = timeline.map((entry) => entry.action).filter((action) => !action.startsWith('consent '));
    expect(acts).toEqual([
      'opened',
      'saved',
      'saved',
      'saved',
      'uploaded',
      'saved',
      'esign_consented',
      'signed',
      'submitted',
    ]);
    expect(timeline[0]).toMatchObject({
      requestId: opened.headers['x-request-id'],
      actor: { type: 'recipient', label: expect.any(String) },
    });
    // In the template's words, not its keys.
    expect(timeline.find((entry) => entry.action === 'uploaded')?.details).toEqual({
      on: 'W-9 (U.S. persons) or W-8BEN (others) (Tax residency and forms)',
      filename: 'W-9.pdf',
    });
  });

  it("shows the reviewer's open comments for the investor beside their items, never an internal note, and no longer once resolved", async () => {
    const { transactionId, transmitToken } = await create();
    const reviewer = await createPerson(suite.db, {
      tenant: { kind: 'organization', id: tenant.organizationId },
      role: 'reviewer',
      name: 'Rae Viewer',
    });
    const comment = await addReviewComment(suite.db, {
      organizationId: tenant.organizationId,
      transactionId,
      vulcanKey: 'investor_details',
      field: 'address',
      body: 'Your registered address, please.',
      forInvestor: true,
      actor: { type: 'user', id: reviewer.id },
    });
    await addReviewComment(suite.db, {
      organizationId: tenant.organizationId,
      transactionId,
      vulcanKey: 'investor_details',
      field: 'legalName',
      body: 'Checked against the passport copy.',
      forInvestor: false,
      actor: { type: 'user', id: reviewer.id },
    });
    const commentsOfItems = async () => {
      const view = await recipient(suite.app, 'GET', transmitToken);
      return Object.fromEntries(
        view.body.processes[0].items.map((item: { vulcanKey: string; comments: unknown[] }) => [
          item.vulcanKey,
          item.comments,
        ]),
      );
    };
    // Only the comment for the investor: the internal note on the legal name is not there.
    expect(await commentsOfItems()).toMatchObject({
      investor_details: [
        {
          id: comment.id,
          field: 'address',
          body: 'Your registered address, please.',
          author: 'Rae Viewer',
        },
      ],
      tax_forms: [],
    });
    await resolveReviewComment(suite.db, {
      organizationId: tenant.organizationId,
      commentId: comment.id,
      actor: { type: 'user', id: reviewer.id },
    });
    expect((await commentsOfItems()).investor_details).toEqual([]);
  });
});

describe('consents', () => {
  const items = async (token: string) =>
    (await recipient(suite.app, 'GET', token)).body.processes[0].items as {
      vulcanKey: string;
      data: Record<string, unknown>;
      completionPercentage: number;
      consents: Record<string, string>;
    }[];
  const accreditation = async (token: string) =>
    (await items(token)).find((item) => item.vulcanKey === CONSENT_ITEM);

  it('starts a fresh transaction with every item at 0% and no consent given', async () => {
    const { transmitToken } = await create();
    for (const item of await items(transmitToken)) {
      expect(item, item.vulcanKey).toMatchObject({ completionPercentage: 0, consents: {} });
      expect(item.data, item.vulcanKey).toEqual({});
    }
  });

  it('refuses to give a consent through inputData when creating a transaction', async () => {
    const { body } = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
      input: transactionInput(tenant, { inputData: { accreditation: { confirmed: true } } }),
    });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'inputData' });
    expect(body.errors?.[0]?.message).toContain(
      'inputData.accreditation.confirmed: is a consent only the recipient gives',
    );
  });

  it('leaves an item incomplete when a save carries no consent, and a submit names the consent', async () => {
    const { transmitToken } = await create();
    const saved = await recipient(suite.app, 'PUT', `${transmitToken}/items/${CONSENT_ITEM}`, {
      data: { basis: ['income'] },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ completionPercentage: 50, consents: {} });
    const submit = await recipient(suite.app, 'POST', `${transmitToken}/processes/subscription/submit`);
    expect(submit.status).toBe(409);
    expect(submit.body.error.code).toBe('REVISION_INCOMPLETE');
    expect(submit.body.error.details.fields).toMatchObject({ accreditation: ['confirmed'] });
    expect(submit.body.error.message).toContain('accreditation (confirmed)');
  });

  it('refuses a consent sent as false, naming the field, and keeps what was saved before', async () => {
    const { transmitToken } = await create();
    const given = await recipient(suite.app, 'PUT', `${transmitToken}/items/${CONSENT_ITEM}`, {
      data: { basis: ['income'], confirmed: true },
    });
    expect(given.body.completionPercentage).toBe(100);
    const refused = await recipient(suite.app, 'PUT', `${transmitToken}/items/${CONSENT_ITEM}`, {
      data: { basis: ['net_worth'], confirmed: false },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'CONSENT_REQUIRED',
      details: { item: CONSENT_ITEM, field: 'confirmed' },
    });
    expect(refused.body.error.message).toBe(
      '"confirmed" of item "accreditation" is a consent: send true once the recipient gives it, and leave it out until then',
    );
    expect(await accreditation(transmitToken)).toMatchObject({
      data: { basis: ['income'], confirmed: true },
      completionPercentage: 100,
      consents: given.body.consents,
    });
  });

  it('records when a save first gives a consent, keeps that time while saves keep it, and forgets it when left out', async () => {
    const { transactionId, transmitToken } = await create();
    const before = Date.now();
    const first = await recipient(suite.app, 'PUT', `${transmitToken}/items/${CONSENT_ITEM}`, {
      data: { basis: ['income'], confirmed: true },
    });
    const after = Date.now();
    const givenAt = Date.parse(first.body.consents.confirmed);
    // The database's clock, read in the same request: within it, give or take the clocks' precision.
    expect(givenAt).toBeGreaterThanOrEqual(before - 1);
    expect(givenAt).toBeLessThanOrEqual(after + 1);
    const again = await recipient(suite.app, 'PUT', `${transmitToken}/items/${CONSENT_ITEM}`, {
      data: { basis: ['net_worth'], confirmed: true },
    });
    expect(again.body.consents).toEqual(first.body.consents);
    expect((await accreditation(transmitToken))?.consents).toEqual(first.body.consents);
    const withdrawn = await recipient(suite.app, 'PUT', `${transmitToken}/items/${CONSENT_ITEM}`, {
      data: { basis: ['net_worth'] },
    });
    expect(withdrawn.body).toMatchObject({ completionPercentage: 50, consents: {} });
    // Giving and withdrawing are the recipient's acts, in the transaction's events; keeping it is not.
    const events = await suite.db.query<{ eventKey: string; actorType: string; recipient: boolean }>(
      `select e.event_key as "eventKey", e.actor_type as "actorType",
         e.actor_id = (select r.id::text from transaction_recipients r where r.transaction_id = e.transaction_id
                       and r.vulcan_key = 'investor') as recipient
       from transaction_events e where e.transaction_id = $1 and e.event_key like 'consent.%'
       order by e.created_at, e.sequence`,
      [transactionId],
    );
    expect(events).toEqual([
      { eventKey: 'consent.given.accreditation.confirmed', actorType: 'recipient', recipient: true },
      { eventKey: 'consent.withdrawn.accreditation.confirmed', actorType: 'recipient', recipient: true },
    ]);
  });

  it('prints beside each consent in the signed PDF when it was given', async () => {
    const { transactionId, transmitToken } = await create();
    const { consents } = await fillAndSign(transmitToken);
    expect(
      (await recipient(suite.app, 'POST', `${transmitToken}/processes/subscription/submit`)).status,
    ).toBe(200);
    const signed = await approveAndCountersign(suite, tenant.apiKey, transactionId, 'Alex Morgan');
    // A long line wraps: read the text as one run of words.
    const text = pdfText(signed).replace(/\s+/g, ' ');
    expect(consents.confirmed).toMatch(/^\d{4}-\d\d-\d\dT/);
    const givenAt = `${(consents.confirmed ?? '').slice(0, 19).replace('T', ' ')} UTC`;
    expect(text).toContain(
      `I confirm that what I have given here is true and complete: Yes, given ${givenAt}`,
    );
    expect(text).toContain('Signed electronically by Alex Morgan');
  });
});

describe('how long answers may be', () => {
  const save = (token: string, vulcanKey: string, data: Record<string, unknown>) =>
    recipient(suite.app, 'PUT', `${token}/items/${vulcanKey}`, { data });
  const about = (fields: Record<string, unknown>) => ({
    legalName: 'Grace Hopper',
    email: 'grace@example.com',
    address: '1 Navy Way',
    ...fields,
  });
  const refusal = (response: { status: number; body: { error: { code: string; message: string } } }) => {
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('BAD_USER_INPUT');
    return response.body.error.message;
  };

  /** The example template under its own key, with `change` made to its text; its id. */
  async function importChanged(change: (source: string) => string): Promise<string> {
    const example = await readFile(
      new URL('../../../templates/examples/subscription.yaml', import.meta.url),
      'utf8',
    );
    const source = change(
      example.replace('key: subscription\n', `key: bounded_${randomUUID().slice(0, 8)}\n`),
    );
    expect(source).not.toBe(example);
    const imported = await importTemplateSource(suite.db, {
      organizationId: tenant.organizationId,
      source,
      filename: 'bounded.yaml',
    });
    return imported.id;
  }

  async function createFrom(templateId: string) {
    const { body } = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
      input: transactionInput({ ...tenant, templateId }, { inputData: {} }),
    });
    expect(body.errors).toBeUndefined();
    return body.data!.createTransaction as { transactionId: string; transmitToken: string };
  }

  it('refuses an answer of one word of nearly 1 MiB, naming the field and its bound, and keeps what was saved', async () => {
    const { transmitToken } = await create();
    expect((await save(transmitToken, 'investor_details', about({}))).status).toBe(200);
    const word = 'x'.repeat(1024 * 1024 - 1024);
    const message = refusal(await save(transmitToken, 'investor_details', about({ address: word })));
    expect(message).toBe(
      `the data does not fit item "investor_details": address: must be at most 2,000 characters; (item): must take at most 65,536 bytes as JSON; it takes ${JSON.stringify(about({ address: word })).length.toLocaleString('en-US')}`,
    );
    const items = (await recipient(suite.app, 'GET', transmitToken)).body.processes[0].items as {
      vulcanKey: string;
      data: unknown;
    }[];
    expect(items.find((item) => item.vulcanKey === 'investor_details')?.data).toEqual(about({}));
  });

  it('takes a text of 2,000 characters where the schema gives no maxLength, and refuses 2,001 naming the field', async () => {
    const { transmitToken } = await create();
    expect(
      (await save(transmitToken, 'investor_details', about({ address: 'a'.repeat(2_000) }))).status,
    ).toBe(200);
    // Counted as JSON Schema counts: an emoji is one character.
    expect(
      (await save(transmitToken, 'investor_details', about({ address: '🏠'.repeat(2_000) }))).status,
    ).toBe(200);
    expect(
      refusal(await save(transmitToken, 'investor_details', about({ address: 'a'.repeat(2_001) }))),
    ).toBe('the data does not fit item "investor_details": address: must be at most 2,000 characters');
    // Nested strings too: each choice of the accreditation's basis is a string.
    expect(refusal(await save(transmitToken, 'accreditation', { basis: ['b'.repeat(2_001)] }))).toContain(
      'basis.0: must be at most 2,000 characters',
    );
  });

  it("keeps a template's lower maxLength, and a higher one up to 20,000", async () => {
    const { transmitToken } = await create();
    expect(
      refusal(await save(transmitToken, 'investor_details', about({ legalName: 'n'.repeat(201) }))),
    ).toBe('the data does not fit item "investor_details": legalName: must be at most 200 characters');
    const templateId = await importChanged((source) =>
      source.replace(
        '              title: Residential or registered address\n              minLength: 1\n',
        '              title: Residential or registered address\n              minLength: 1\n              maxLength: 5000\n',
      ),
    );
    const long = await createFrom(templateId);
    expect(
      (await save(long.transmitToken, 'investor_details', about({ address: 'a'.repeat(5_000) }))).status,
    ).toBe(200);
    expect(
      refusal(await save(long.transmitToken, 'investor_details', about({ address: 'a'.repeat(5_001) }))),
    ).toBe('the data does not fit item "investor_details": address: must be at most 5,000 characters');
  });

  it("refuses an item's data over its total, 64 KiB or the template's maxDataBytes, before reading it against its schema", async () => {
    const { transmitToken } = await create();
    // Many fields within their length: only the total refuses them (the schema allows fields it does not name).
    const many = about(
      Object.fromEntries(
        Array.from({ length: 40 }, (_, index) => [`note${String(index)}`, 'n'.repeat(2_000)]),
      ),
    );
    expect(refusal(await save(transmitToken, 'investor_details', many))).toBe(
      `the data does not fit item "investor_details": (item): must take at most 65,536 bytes as JSON; it takes ${JSON.stringify(many).length.toLocaleString('en-US')}`,
    );
    const templateId = await importChanged((source) =>
      source.replace(
        '      - vulcanKey: investor_details\n',
        '      - vulcanKey: investor_details\n        maxDataBytes: 1024\n',
      ),
    );
    const small = await createFrom(templateId);
    const fits = about({ address: 'a'.repeat(900) });
    expect(JSON.stringify(fits).length).toBeLessThanOrEqual(1024);
    expect((await save(small.transmitToken, 'investor_details', fits)).status).toBe(200);
    const over = about({ address: 'a'.repeat(1_000) });
    expect(refusal(await save(small.transmitToken, 'investor_details', over))).toBe(
      `the data does not fit item "investor_details": (item): must take at most 1,024 bytes as JSON; it takes ${JSON.stringify(over).length.toLocaleString('en-US')}`,
    );
  });

  it('gives the page each string field with its bound, so that the form stops a long answer as it is typed', async () => {
    const { transmitToken } = await create();
    const items = (await recipient(suite.app, 'GET', transmitToken)).body.processes[0].items as {
      vulcanKey: string;
      schema: { properties: Record<string, { maxLength?: number }> };
    }[];
    const properties = items.find((item) => item.vulcanKey === 'investor_details')?.schema.properties;
    expect(properties?.address?.maxLength).toBe(2_000);
    expect(properties?.legalName?.maxLength).toBe(200);
  });

  it('refuses inputData over the bounds when a transaction is created, naming the field', async () => {
    const { body } = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
      input: transactionInput(tenant, { inputData: { investor_details: { address: 'a'.repeat(2_001) } } }),
    });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'inputData' });
    expect(body.errors?.[0]?.message).toContain(
      'inputData.investor_details.address: must be at most 2,000 characters',
    );
  });
});
