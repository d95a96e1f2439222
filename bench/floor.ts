import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { createBaseApp } from '../src/http/base-app.ts';
import type { TlsMaterial } from '../src/http/tls.ts';

export const FLOOR_PATH = '/floor';

/** An RFC 3339 UTC timestamp with milliseconds, exactly as the GraphQL `datetime` scalar serializes one. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The reference query's whole response, `{"data": {"transaction": …}}`, built by PostgreSQL in one statement:
 * the same fields, in the same order, with GraphQL's default orders (created_at, id ascending). `json`, not
 * `jsonb`, keeps the keys in the order written; the result is sent as the text PostgreSQL produced.
 */
export const FLOOR_SQL = `
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
)))::text as body`;

interface FloorBody {
  variables?: { id?: unknown };
}

/**
 * The floor: the same base app as the Transactions service (HTTPS-only polyglot server, request ids, error
 * handler), with one route that answers the reference query's request body with one SQL statement. No auth,
 * no GraphQL.
 */
export async function buildFloorApp(options: {
  db: Database;
  tls: Pick<TlsMaterial, 'cert' | 'key'>;
}): Promise<FastifyInstance> {
  const { db } = options;
  const app = await createBaseApp({ db, tls: options.tls });
  app.post<{ Body: FloorBody }>(FLOOR_PATH, async (request, reply) => {
    const [row] = await db.query<{ body: string }>(FLOOR_SQL, [request.body.variables?.id]);
    if (!row) throw new Error('the floor statement returned no row');
    return reply.type('application/json; charset=utf-8').send(row.body);
  });
  return app;
}
