import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { loadInstanceSecret } from '../../../src/db/instance-secrets.ts';
import { createFileLinks } from '../../../src/files/file-links.ts';
import { graphql, REFERENCE_QUERY, type GraphQLResponse } from '../../support/data/transactions.ts';
import type { OrganizationStory, TransactionStory } from '../../support/data/stories.ts';
import { useTransactionsSuite } from '../../support/data/transactions-suite.ts';
import { UUID } from '../../support/uuid.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const suite = useTransactionsSuite();
/**
 * The organizations of this file, made once: every test here only reads (a file link is signed, not stored), so
 * they may share them and count their records. The first has a transaction in each of three states, the complete
 * one after three rounds of submission; the second, two transactions.
 */
let story: OrganizationStory;
let other: OrganizationStory;
/** The story's complete transaction. */
let complete: TransactionStory;

/** Ids of every kind of record of the story organization's complete transaction. */
let ids: {
  itemId: string;
  recipientId: string;
  transactionFileId: string;
  signatureFileId: string;
  fileId: string;
  entityId: string;
};

/** A GraphQL request with the story organization's key. */
function ask(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse> {
  return graphql(suite.app, story.apiKey, query, variables);
}

/** The story organization's complete transaction, read with `selection`. */
async function storyTransaction(selection: string) {
  const { body } = await ask(`query ($id: uuid!) { transaction(id: $id) { ${selection} } }`, {
    id: story.transactionId,
  });
  expect(body.errors).toBeUndefined();
  return body.data?.transaction;
}

beforeAll(async () => {
  story = await suite.tenant({ transactions: ['complete', 'sent', 'created'], rounds: 3 });
  other = await suite.tenant({ transactions: ['complete', 'created'] });
  const [first] = story.transactions;
  if (first?.state !== 'complete') throw new Error('the story starts with its complete transaction');
  complete = first;
  const t = await storyTransaction(
    'transactionItems { id } transactionRecipients { id entity { id } } transactionFiles { id file { id } } transactionSignatureFiles { id }',
  );
  ids = {
    itemId: t.transactionItems[0].id,
    recipientId: t.transactionRecipients[0].id,
    entityId: t.transactionRecipients[0].entity.id,
    transactionFileId: t.transactionFiles[0].id,
    fileId: t.transactionFiles[0].file.id,
    signatureFileId: t.transactionSignatureFiles[0].id,
  };
});

describe('the reference query (spec part 4)', () => {
  it('returns the transaction with its recipients, their entities, its process revisions and their items', async () => {
    const { status, body } = await ask(REFERENCE_QUERY, { id: story.transactionId });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const transaction = body.data?.transaction;
    expect(Object.keys(transaction)).toEqual(['id', 'transactionRecipients', 'transactionProcessRevisions']);
    expect(transaction.id).toBe(story.transactionId);

    expect(transaction.transactionRecipients).toHaveLength(complete.recipients.length);
    for (const recipient of transaction.transactionRecipients) {
      expect(Object.keys(recipient)).toEqual(['id', 'vulcanKey', 'entity']);
      expect(Object.keys(recipient.entity)).toEqual(['id', 'name', 'email', 'settings', 'type']);
      expect(recipient.id).toMatch(UUID);
    }
    expect(transaction.transactionRecipients.map((r: { vulcanKey: string }) => r.vulcanKey)).toEqual(
      complete.recipients,
    );
    const [investor, countersigner] = transaction.transactionRecipients;
    expect(investor.entity).toMatchObject({ ...complete.investor, type: 'INDIVIDUAL' });
    expect(countersigner.entity.id).toBe(story.senderEntityId);
    expect(countersigner.entity.settings).toEqual(story.sender.settings);

    expect(transaction.transactionProcessRevisions).toHaveLength(complete.revisions);
    for (const revision of transaction.transactionProcessRevisions) {
      expect(Object.keys(revision)).toEqual([
        'id',
        'transactionProcessId',
        'createdAt',
        'committedAt',
        'context',
        'transactionItems',
      ]);
      expect(revision.createdAt).toMatch(ISO);
      expect(revision.committedAt).toMatch(ISO);
      // One item per item of the template: investor_details, tax_forms, accreditation, subscription_amount.
      expect(revision.transactionItems).toHaveLength(complete.itemsPerRevision);
      for (const item of revision.transactionItems) {
        expect(Object.keys(item)).toEqual(['id', 'completionPercentage', 'createdAt', 'data', 'vulcanKey']);
        expect(item.completionPercentage).toBeGreaterThanOrEqual(0);
        expect(item.completionPercentage).toBeLessThanOrEqual(100);
      }
    }
    const processIds = new Set(
      transaction.transactionProcessRevisions.map(
        (r: { transactionProcessId: string }) => r.transactionProcessId,
      ),
    );
    expect(processIds.size).toBe(1);
  });

  it('answers the same query sent with GET and the query in the URL', async () => {
    const response = await suite.app.inject({
      method: 'GET',
      url: '/beta',
      query: { query: REFERENCE_QUERY, variables: JSON.stringify({ id: story.transactionId }) },
      headers: { authorization: `Bearer ${story.apiKey}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.transaction.transactionProcessRevisions).toHaveLength(complete.revisions);
  });
});

describe('root fields', () => {
  it('viewer returns the organization of the calling key, with the ids needed to create a transaction', async () => {
    const { body } = await ask(
      '{ viewer { id handle name templates { id key version } entities { id type } } }',
    );
    expect(body.data?.viewer.id).toBe(story.organizationId);
    expect(body.data?.viewer.templates).toEqual([{ id: story.templateId, key: 'subscription', version: 1 }]);
    expect(body.data?.viewer.entities.map((e: { id: string }) => e.id)).toContain(story.senderEntityId);
  });

  it('organization returns the organization of the key by its id', async () => {
    const { body } = await ask('query ($id: uuid!) { organization(id: $id) { id name } }', {
      id: story.organizationId,
    });
    expect(body.data?.organization).toEqual({ id: story.organizationId, name: story.name });
  });

  it('entity, template, transactionItem, transactionRecipient, transactionFile and transactionSignatureFile return their record', async () => {
    const { body } = await ask(
      `
        query (
          $entity: uuid!
          $template: uuid!
          $item: uuid!
          $recipient: uuid!
          $file: uuid!
          $signed: uuid!
        ) {
          entity(id: $entity) {
            id
            name
            type
            createdAt
            updatedAt
          }
          template(id: $template) {
            id
            key
            definition
          }
          transactionItem(id: $item) {
            id
            vulcanKey
            transactionProcessRevisionId
          }
          transactionRecipient(id: $recipient) {
            id
            vulcanKey
            transactionId
          }
          transactionFile(id: $file) {
            id
            vulcanKey
            file {
              originalFilename
            }
            transactionRecipient {
              id
            }
          }
          transactionSignatureFile(id: $signed) {
            id
            file {
              mimeType
            }
            transactionSignatureContainer {
              documentKey
              state
            }
          }
        }
      `,
      {
        entity: ids.entityId,
        template: story.templateId,
        item: ids.itemId,
        recipient: ids.recipientId,
        file: ids.transactionFileId,
        signed: ids.signatureFileId,
      },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data?.entity).toMatchObject({
      id: ids.entityId,
      name: complete.investor.name,
      type: 'INDIVIDUAL',
    });
    expect(body.data?.template.definition.workflow.initialState).toBe('draft');
    expect(body.data?.transactionItem.id).toBe(ids.itemId);
    expect(body.data?.transactionRecipient).toEqual({
      id: ids.recipientId,
      vulcanKey: 'investor',
      transactionId: story.transactionId,
    });
    expect(body.data?.transactionFile.file.originalFilename).toBe(complete.files[0]);
    expect(body.data?.transactionFile.transactionRecipient.id).toBe(ids.recipientId);
    expect(body.data?.transactionSignatureFile.file.mimeType).toBe('application/pdf');
    expect(body.data?.transactionSignatureFile.transactionSignatureContainer).toEqual({
      documentKey: 'subscription_agreement',
      state: 'COMPLETED',
    });
  });

  it('file returns the file with every field of the spec and a signed URL', async () => {
    const { body } = await ask(
      `
        query ($id: UUID!) {
          file(id: $id) {
            id
            mimeType
            extension
            originalFilename
            overrideFilename
            createdAt
            uploadedAt
            signedUrl
          }
        }
      `,
      { id: ids.fileId },
    );
    expect(body.data?.file).toMatchObject({
      id: ids.fileId,
      mimeType: 'application/pdf',
      extension: 'pdf',
      originalFilename: complete.files[0],
      overrideFilename: null,
    });
    expect(body.data?.file.createdAt).toMatch(ISO);
    expect(body.data?.file.uploadedAt).toMatch(ISO);
    expect(body.data?.file.signedUrl).toMatch(
      /^https:\/\/localhost(:\d+)?\/files\/[0-9a-f-]{36}\?expires=\d+&signature=/,
    );
  });

  it('file answers NOT_FOUND for an unknown id, since the field is non-null', async () => {
    const { body } = await ask('query ($id: UUID!) { file(id: $id) { id } }', {
      id: '00000000-0000-4000-8000-000000000000',
    });
    expect(body.data).toBeNull();
    expect(body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    expect(body.errors?.[0]?.path).toEqual(['file']);
  });

  it('transaction shows state, completion, template, sender, processes, signatures and the event log', async () => {
    const t = await storyTransaction(`
        state
        isComplete
        completedAt
        noticeName
        noticeEmail
        inputData
        template {
          id
        }
        organization {
          id
        }
        senderEntity {
          id
        }
        transactionProcesses {
          key
          isComplete
          transactionProcessRevisions {
            number
          }
        }
        transactionSignatureContainers {
          state
          transactionSignatures {
            state
            signedName
            transactionRecipient {
              vulcanKey
            }
          }
        }
        events {
          eventKey
          sourceStateKey
          targetStateKey
          actorType
        }
    `);
    expect(t).toMatchObject({
      state: 'completed',
      isComplete: true,
      noticeName: complete.investor.name,
      template: { id: story.templateId },
      organization: { id: story.organizationId },
      senderEntity: { id: story.senderEntityId },
    });
    expect(t.completedAt).toMatch(ISO);
    expect(t.transactionProcesses).toEqual([
      {
        key: 'subscription',
        isComplete: true,
        transactionProcessRevisions: Array.from({ length: complete.revisions }, (_, index) => ({
          number: index + 1,
        })),
      },
    ]);
    // Each request for changes voided the signature of the revision before; the last was signed by both roles.
    expect(t.transactionSignatureContainers.map((c: { state: string }) => c.state)).toEqual([
      ...Array.from({ length: complete.revisions - 1 }, () => 'VOIDED'),
      'COMPLETED',
    ]);
    expect(
      t.transactionSignatureContainers.at(-1).transactionSignatures.map((s: { state: string }) => s.state),
    ).toEqual(['SIGNED', 'SIGNED']);
    expect(t.events[0]).toEqual({
      eventKey: 'create',
      sourceStateKey: null,
      targetStateKey: 'draft',
      actorType: 'SYSTEM',
    });
    expect(t.events.at(-1)).toMatchObject({ eventKey: 'countersign', targetStateKey: 'completed' });
  });
});

describe('ordering rules (spec part 2)', () => {
  it('top-level transactionItems holds the items of every revision, and sorted newest first shows the latest data first', async () => {
    const t = await storyTransaction(`
        all: transactionItems {
          id
          createdAt
        }
        latest: transactionItems(orderBy: CREATED_AT_DESC) {
          vulcanKey
          data
          transactionProcessRevisionId
        }
        revisions: transactionProcessRevisions(orderBy: CREATED_AT_DESC) {
          id
          number
        }
    `);
    expect(t.all).toHaveLength(complete.revisions * complete.itemsPerRevision);
    const createdAt = t.all.map((item: { createdAt: string }) => item.createdAt);
    expect(createdAt).toEqual([...createdAt].sort());
    expect(t.revisions.map((r: { number: number }) => r.number)).toEqual(
      Array.from({ length: complete.revisions }, (_, index) => complete.revisions - index),
    );
    const latestRevisionItems = t.latest.slice(0, complete.itemsPerRevision);
    for (const item of latestRevisionItems) expect(item.transactionProcessRevisionId).toBe(t.revisions[0].id);
    const amount = t.latest.find((item: { vulcanKey: string }) => item.vulcanKey === 'subscription_amount');
    expect(amount.data.amount).toEqual(complete.amount);
  });

  it('orders revisions oldest first by default and newest first on request, with their items', async () => {
    const { asc, desc } = await storyTransaction(`
        asc: transactionProcessRevisions {
          createdAt
          transactionItems {
            createdAt
          }
        }
        desc: transactionProcessRevisions(orderBy: CREATED_AT_DESC) {
          createdAt
          transactionItems(orderBy: CREATED_AT_DESC) {
            createdAt
          }
        }
    `);
    const ascTimes = asc.map((r: { createdAt: string }) => r.createdAt);
    expect(ascTimes).toEqual([...ascTimes].sort());
    expect(desc.map((r: { createdAt: string }) => r.createdAt)).toEqual([...ascTimes].reverse());
    const items = desc[0].transactionItems.map((i: { createdAt: string }) => i.createdAt);
    expect(items).toEqual([...items].sort().reverse());
  });
});

describe('organization transactions, a page at a time', () => {
  it('walks every transaction once, newest first, and counts them all', async () => {
    const seen: { id: string; createdAt: string }[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page += 1) {
      const { body }: GraphQLResponse = await ask(
        `
          query ($after: String) {
            viewer {
              transactions(first: 1, after: $after) {
                totalCount
                pageInfo {
                  hasNextPage
                  endCursor
                }
                nodes {
                  id
                  createdAt
                }
              }
            }
          }
        `,
        { after },
      );
      const connection: {
        totalCount: number;
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: { id: string; createdAt: string }[];
      } = body.data?.viewer.transactions;
      expect(connection.totalCount).toBe(story.transactions.length);
      seen.push(...connection.nodes);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    const seenIds = seen.map((node) => node.id);
    expect(seenIds).toHaveLength(story.transactions.length);
    expect(new Set(seenIds)).toEqual(new Set(story.transactions.map((transaction) => transaction.id)));
    expect(seenIds).toContain(story.transactionId);
    const times = seen.map((node) => node.createdAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('refuses a cursor it did not issue and a page size out of range', async () => {
    const bad = await ask('{ viewer { transactions(after: "garbage") { totalCount } } }');
    expect(bad.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const big = await ask('{ viewer { transactions(first: 1000) { totalCount } } }');
    expect(big.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
  });
});

describe('tenant isolation', () => {
  it("reads another organization's ids as null from every nullable root field", async () => {
    const { body } = await graphql(
      suite.app,
      other.apiKey,
      `
        query (
          $org: uuid!
          $entity: uuid!
          $template: uuid!
          $transaction: uuid!
          $item: uuid!
          $recipient: uuid!
          $file: uuid!
          $signed: uuid!
        ) {
          organization(id: $org) {
            id
          }
          entity(id: $entity) {
            id
          }
          template(id: $template) {
            id
          }
          transaction(id: $transaction) {
            id
          }
          transactionItem(id: $item) {
            id
          }
          transactionRecipient(id: $recipient) {
            id
          }
          transactionFile(id: $file) {
            id
          }
          transactionSignatureFile(id: $signed) {
            id
          }
        }
      `,
      {
        org: story.organizationId,
        entity: ids.entityId,
        template: story.templateId,
        transaction: story.transactionId,
        item: ids.itemId,
        recipient: ids.recipientId,
        file: ids.transactionFileId,
        signed: ids.signatureFileId,
      },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      organization: null,
      entity: null,
      template: null,
      transaction: null,
      transactionItem: null,
      transactionRecipient: null,
      transactionFile: null,
      transactionSignatureFile: null,
    });
  });

  it("answers another organization's file exactly like an unknown file", async () => {
    const foreign = await graphql(suite.app, other.apiKey, 'query ($id: UUID!) { file(id: $id) { id } }', {
      id: ids.fileId,
    });
    const unknown = await graphql(suite.app, other.apiKey, 'query ($id: UUID!) { file(id: $id) { id } }', {
      id: '00000000-0000-4000-8000-000000000000',
    });
    expect(foreign.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    expect(foreign.body.errors?.[0]?.message.replace(ids.fileId, 'ID')).toBe(
      unknown.body.errors?.[0]?.message.replace('00000000-0000-4000-8000-000000000000', 'ID'),
    );
  });

  it("refuses a link to another organization's transaction file as not found", async () => {
    const { body } = await graphql(
      suite.app,
      other.apiKey,
      'mutation ($id: uuid!) { genTransactionFileLink(input: { transactionFileId: $id }) { url } }',
      { id: ids.transactionFileId },
    );
    expect(body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });

  it('shows each organization only its own transactions and entities', async () => {
    const { body } = await graphql(
      suite.app,
      other.apiKey,
      '{ viewer { id transactions { nodes { id } } entities { id } } }',
    );
    expect(body.data?.viewer.id).toBe(other.organizationId);
    const transactionIds = body.data?.viewer.transactions.nodes.map((n: { id: string }) => n.id);
    expect(transactionIds).toHaveLength(other.transactions.length);
    expect(transactionIds).not.toContain(story.transactionId);
    expect(body.data?.viewer.entities.map((e: { id: string }) => e.id)).not.toContain(story.senderEntityId);
  });
});

describe('input validation', () => {
  it('answers a malformed uuid variable with BAD_USER_INPUT and status 400, not a 500', async () => {
    const { status, body } = await ask('query ($id: uuid!) { transaction(id: $id) { id } }', {
      id: 'not-a-uuid',
    });
    expect(status).toBe(400);
    expect(body.data ?? null).toBeNull();
    expect(body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0]?.message).toContain('not-a-uuid');
  });

  it('answers a malformed uuid literal with BAD_USER_INPUT', async () => {
    const { status, body } = await ask('{ transaction(id: "1234") { id } }');
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('accepts an upper-case uuid and finds the same transaction', async () => {
    const { body } = await ask('query ($id: uuid!) { transaction(id: $id) { id } }', {
      id: story.transactionId.toUpperCase(),
    });
    expect(body.data?.transaction.id).toBe(story.transactionId);
  });

  it('names syntax and validation errors with their own codes', async () => {
    const syntax = await ask('{ transaction(id: ');
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors?.[0]?.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const unknownField = await ask('{ viewer { nope } }');
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.errors?.[0]?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('puts the request id of the response header on every error', async () => {
    const { headers, body } = await ask('{ transaction(id: "x") { id } }');
    expect(headers['x-request-id']).toMatch(/^req_/);
    expect(body.errors?.[0]?.extensions.requestId).toBe(headers['x-request-id']);
  });
});

describe('introspection', () => {
  it('describes every type and field of the schema', async () => {
    const { body } = await ask(
      '{ __schema { types { name kind description fields { name description } inputFields { name description } } } }',
    );
    const types = (
      body.data?.__schema.types as {
        name: string;
        kind: string;
        description: string | null;
        fields: { name: string; description: string | null }[] | null;
        inputFields: { name: string; description: string | null }[] | null;
      }[]
    ).filter(
      (type) =>
        !type.name.startsWith('__') && !['String', 'Int', 'Boolean', 'Float', 'ID'].includes(type.name),
    );
    expect(types.length).toBeGreaterThan(20);
    const undocumented = types.flatMap((type) => [
      ...(type.description ? [] : [type.name]),
      ...[...(type.fields ?? []), ...(type.inputFields ?? [])]
        .filter((field) => !field.description)
        .map((field) => `${type.name}.${field.name}`),
    ]);
    expect(undocumented).toEqual([]);
  });

  it('offers both spellings of each scalar and the root fields with the nullability of the spec', async () => {
    const { body } = await ask(`
        {
          __schema {
            types {
              name
              kind
            }
            queryType {
              fields {
                name
                type {
                  kind
                  name
                  ofType {
                    name
                  }
                }
                args {
                  name
                  type {
                    kind
                    ofType {
                      name
                    }
                  }
                }
              }
            }
          }
        }
      `);
    const scalarNames = body.data?.__schema.types
      .filter((t: { kind: string }) => t.kind === 'SCALAR')
      .map((t: { name: string }) => t.name);
    expect(scalarNames).toEqual(
      expect.arrayContaining(['uuid', 'UUID', 'datetime', 'DateTime', 'json', 'JSON']),
    );
    const fields = Object.fromEntries(
      body.data?.__schema.queryType.fields.map((f: { name: string }) => [f.name, f]),
    );
    const nullable = [
      ['entity', 'Entity'],
      ['organization', 'Organization'],
      ['transaction', 'Transaction'],
      ['transactionItem', 'TransactionItem'],
      ['transactionFile', 'TransactionFile'],
      ['transactionSignatureFile', 'TransactionSignatureFile'],
      ['transactionRecipient', 'TransactionRecipient'],
    ];
    for (const [name, type] of nullable) {
      expect(fields[name!].type).toMatchObject({ kind: 'OBJECT', name: type });
      expect(fields[name!].args).toEqual([
        { name: 'id', type: { kind: 'NON_NULL', ofType: { name: 'uuid' } } },
      ]);
    }
    expect(fields.file.type).toMatchObject({ kind: 'NON_NULL', ofType: { name: 'File' } });
    expect(fields.file.args).toEqual([{ name: 'id', type: { kind: 'NON_NULL', ofType: { name: 'UUID' } } }]);
  });

  it('serves the GraphiQL page for exploring the schema', async () => {
    const response = await suite.app.inject({ method: 'GET', url: '/graphiql' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  });
});

describe('signed file links', () => {
  it('genTransactionFileLink makes a link that downloads the file without an API key', async () => {
    const { body } = await ask(
      'mutation ($id: uuid!) { genTransactionFileLink(input: { transactionFileId: $id, expiresInSeconds: 120 }) { url expiresAt file { id } } }',
      { id: ids.signatureFileId },
    );
    const link = body.data?.genTransactionFileLink;
    const expiresIn = new Date(link.expiresAt).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(100_000);
    expect(expiresIn).toBeLessThanOrEqual(120_000);
    const download = await suite.app.inject({
      method: 'GET',
      url: new URL(link.url).pathname + new URL(link.url).search,
    });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.headers['content-disposition']).toContain('Subscription agreement');
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('refuses a link whose signature, file or expiry was changed, and an expired one', async () => {
    const { body } = await ask('query ($id: UUID!) { file(id: $id) { signedUrl } }', {
      id: ids.fileId,
    });
    const url = new URL(body.data?.file.signedUrl);
    const tampered = [
      `${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${'A'.repeat(43)}`,
      `${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 1}&signature=${url.searchParams.get('signature')}`,
      `/files/${ids.entityId}${url.search}`,
    ];
    const links = createFileLinks(await loadInstanceSecret(suite.db, 'file_links'));
    tampered.push(links.pathFor(ids.fileId, new Date(Date.now() - 1000)));
    for (const path of tampered) {
      const response = await suite.app.inject({ method: 'GET', url: path });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('FORBIDDEN');
    }
  });

  it('refuses a lifetime outside 60 seconds to 24 hours', async () => {
    const { body } = await ask(
      'mutation ($id: uuid!) { genTransactionFileLink(input: { transactionFileId: $id, expiresInSeconds: 59 }) { url } }',
      { id: ids.transactionFileId },
    );
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'expiresInSeconds' });
  });
});

describe('unexpected errors', () => {
  it('are masked for the client, with the request id, and never show SQL or a stack', async () => {
    const failing: Database = {
      ...suite.db,
      query: (text, params) =>
        text.includes('from transaction_recipients')
          ? Promise.reject(new Error('relation "transaction_recipients" does not exist at character 42'))
          : suite.db.query(text, params),
    };
    const broken = await suite.buildApp({ db: failing });
    const { status, body } = await graphql(broken, story.apiKey, REFERENCE_QUERY, {
      id: story.transactionId,
    });
    expect(status).toBe(200);
    // The transaction and everything under it are read in one statement, which failed.
    expect(body.data).toEqual({ transaction: null });
    const [error] = body.errors ?? [];
    expect(error?.path).toEqual(['transaction']);
    expect(error?.extensions.code).toBe('INTERNAL_SERVER_ERROR');
    expect(error?.extensions.requestId).toMatch(/^req_/);
    expect(JSON.stringify(body)).not.toMatch(/relation|character|at .*\.ts/);
  });
});
