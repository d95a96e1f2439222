import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { createBaseApp } from '../src/http/base-app.ts';
import type { TlsMaterial } from '../src/http/tls.ts';

/** An RFC 3339 UTC timestamp with milliseconds, exactly as the GraphQL `datetime` scalar serializes one. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The reference query's whole response, `{"data": {"transaction": …}}`, built by PostgreSQL in one statement:
 * the same fields, in the same order, with GraphQL's default orders (created_at, id ascending). `json`, not
 * `jsonb`, keeps the keys in the order written.
 */
const KEYED_SQL = `
select json_build_object('data', json_build_object('transaction', (
  select json_build_object(
    'id', t.id,
    'transactionRecipients', coalesce((
      select json_agg(json_build_object(
        'id', r.id,
        'vulcanKey', r.vulcan_key,
        'entity', json_build_object(
          'id', e.id, 'name', e.name, 'email', e.email, 'settings', e.settings, 'type', upper(e.type))
      ) order by r.created_at, r.sequence)
      from transaction_recipients r join entities e on e.id = r.entity_id
      where r.transaction_id = t.id), '[]'),
    'transactionProcessRevisions', coalesce((
      select json_agg(json_build_object(
        'id', v.id,
        'transactionProcessId', v.transaction_process_id,
        'createdAt', ${iso('v.created_at')},
        'committedAt', ${iso('v.committed_at')},
        'context', v.context,
        'transactionItems', coalesce((
          select json_agg(json_build_object(
            'id', i.id,
            'completionPercentage', i.completion_percentage,
            'createdAt', ${iso('i.created_at')},
            'data', i.data,
            'vulcanKey', i.vulcan_key
          ) order by i.created_at, i.sequence)
          from transaction_items i where i.transaction_process_revision_id = v.id), '[]')
      ) order by v.created_at, v.sequence)
      from transaction_process_revisions v where v.transaction_id = t.id), '[]')
  )
  from transactions t where t.id = $1
)))`;

/**
 * The same rows as positional arrays, no keys: `[id, recipients, revisions]`, a recipient
 * `[id, vulcanKey, [entity id, name, email, settings, type]]`, a revision
 * `[id, processId, createdAt, committedAt, context, items]`, an item `[id, completion, createdAt, data, vulcanKey]`;
 * null when there is no such transaction.
 */
const POSITIONAL_SQL = `
select (
  select json_build_array(
    t.id,
    coalesce((
      select json_agg(json_build_array(r.id, r.vulcan_key,
        json_build_array(e.id, e.name, e.email, e.settings, upper(e.type))) order by r.created_at, r.sequence)
      from transaction_recipients r join entities e on e.id = r.entity_id
      where r.transaction_id = t.id), '[]'),
    coalesce((
      select json_agg(json_build_array(v.id, v.transaction_process_id, ${iso('v.created_at')},
        ${iso('v.committed_at')}, v.context,
        coalesce((
          select json_agg(json_build_array(i.id, i.completion_percentage, ${iso('i.created_at')}, i.data,
            i.vulcan_key) order by i.created_at, i.sequence)
          from transaction_items i where i.transaction_process_revision_id = v.id), '[]')
      ) order by v.created_at, v.sequence)
      from transaction_process_revisions v where v.transaction_id = t.id), '[]'))
  from transactions t where t.id = $1
) as body`;

type Positional = [
  string,
  [string, string, unknown[]][],
  [string, string, string, unknown, unknown, unknown[][]][],
];

/** The reference query's response from {@link POSITIONAL_SQL}'s arrays: the keys put back in GraphQL's order. */
function fromPositional(transaction: Positional | null): string {
  if (transaction === null) return '{"data":{"transaction":null}}';
  const [id, recipients, revisions] = transaction;
  return JSON.stringify({
    data: {
      transaction: {
        id,
        transactionRecipients: recipients.map(([recipientId, vulcanKey, entity]) => ({
          id: recipientId,
          vulcanKey,
          entity: { id: entity[0], name: entity[1], email: entity[2], settings: entity[3], type: entity[4] },
        })),
        transactionProcessRevisions: revisions.map(
          ([revisionId, transactionProcessId, createdAt, committedAt, context, items]) => ({
            id: revisionId,
            transactionProcessId,
            createdAt,
            committedAt,
            context,
            transactionItems: items.map((item) => ({
              id: item[0],
              completionPercentage: item[1],
              createdAt: item[2],
              data: item[3],
              vulcanKey: item[4],
            })),
          }),
        ),
      },
    },
  });
}

/**
 * The ways tried to answer the reference query with one statement and no GraphQL (see README.md, "The floor"):
 * - `text`: the keyed JSON, sent as the text PostgreSQL wrote. Cheapest, but not the same bytes: PostgreSQL
 *   writes `jsonb` values, and its JSON builders, with spaces after colons and commas.
 * - `keyed`: the keyed JSON, parsed by the driver and written again with `JSON.stringify`: the same bytes as
 *   GraphQL's answer.
 * - `positional`: positional arrays, smaller to build and send, given their keys in Node: the same bytes too.
 * Each goes through the same `Database` as the app: on PostgreSQL a prepared statement, as every statement is.
 */
export const FLOOR_SHAPES = {
  text: {
    sql: `${KEYED_SQL}::text as body`,
    answer: (body: unknown) => body as string,
  },
  keyed: {
    sql: `${KEYED_SQL} as body`,
    answer: (body: unknown) => JSON.stringify(body),
  },
  positional: {
    sql: POSITIONAL_SQL,
    answer: (body: unknown) => fromPositional(body as Positional | null),
  },
} as const satisfies Record<string, { sql: string; answer: (body: unknown) => string }>;

export type FloorShape = keyof typeof FLOOR_SHAPES;

/** Where the floor of each shape answers. */
export const floorPath = (shape: FloorShape): string => `/floor/${shape}`;

interface FloorBody {
  variables?: { id?: unknown };
}

/**
 * The floor: the same base app as the Transactions service (HTTPS-only polyglot server, request ids, error
 * handler), with one route per shape that answers the reference query's request body with one SQL statement.
 * No auth, no GraphQL.
 */
export async function buildFloorApp(options: {
  db: Database;
  tls: Pick<TlsMaterial, 'cert' | 'key'>;
}): Promise<FastifyInstance> {
  const { db } = options;
  const app = await createBaseApp({ db, tls: options.tls });
  for (const [shape, { sql, answer }] of Object.entries(FLOOR_SHAPES)) {
    app.post<{ Body: FloorBody }>(floorPath(shape as FloorShape), async (request, reply) => {
      const [row] = await db.query<{ body: unknown }>(sql, [request.body.variables?.id]);
      if (!row) throw new Error('the floor statement returned no row');
      return reply.type('application/json; charset=utf-8').send(answer(row.body));
    });
  }
  return app;
}
