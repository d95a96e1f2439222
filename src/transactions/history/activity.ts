import type { Queryable } from '../../db/database.ts';
import { originOf, type ActOrigin, type Actor } from '../actor.ts';

/** Who did something to a transaction (see actor.ts). */
export type ActivityActor = Actor;

/** What kinds of activity the timeline keeps besides workflow events and webhook attempts. */
export type ActivityKind = 'recipient' | 'mail' | 'api' | 'console';

/**
 * Appends one entry to a transaction's activity (`transaction_activity`), in the caller's database transaction
 * so that it is written exactly when the change it reports is.
 *
 * @example
 * await recordActivity(tx, { organizationId, transactionId, kind: 'console', action: 'commented', actor, details: { field } });
 */
export async function recordActivity(
  db: Queryable,
  entry: {
    organizationId: string;
    transactionId: string;
    kind: ActivityKind;
    action: string;
    actor: ActivityActor;
    details?: Record<string, unknown>;
    /**
     * Recorded only when the same actor has not done the same thing to the transaction within this many
     * milliseconds (a page opened again and again is one entry, not one per reload).
     */
    onceWithinMs?: number;
  },
): Promise<void> {
  const origin = entry.actor.origin;
  const insert = `insert into transaction_activity
       (organization_id, transaction_id, kind, action, actor_type, actor_id, request_id, details)
     select $1, $2, $3, $4, $5, $6, $7, $8
     where $9::integer is null or not exists (
       select 1 from transaction_activity
       where transaction_id = $2 and action = $4 and actor_type = $5 and actor_id is not distinct from $6
         and created_at > clock_timestamp() - $9 * interval '1 millisecond')`;
  // An act of a request keeps where it came from beside its entry (0034_history_origins.sql), in one statement.
  await db.query(
    origin === undefined
      ? insert
      : `with made as (${insert} returning id)
         insert into transaction_history_origins
           (entry_id, organization_id, transaction_id, ip_address, user_agent, identified_by)
         select id, $1, $2, $10, $11, $12 from made`,
    [
      entry.organizationId,
      entry.transactionId,
      entry.kind,
      entry.action,
      entry.actor.type,
      entry.actor.id,
      entry.actor.requestId ?? null,
      JSON.stringify(entry.details ?? {}),
      entry.onceWithinMs ?? null,
      ...(origin === undefined ? [] : [origin.ipAddress, origin.userAgent, origin.identifiedBy]),
    ],
  );
}

/**
 * Appends the same entry to many transactions' activity in one statement (a bulk reminder's batch), in the
 * caller's database transaction: one row per transaction, as {@link recordActivity} writes it for one.
 */
export async function recordActivities(
  db: Queryable,
  entries: readonly {
    organizationId: string;
    transactionId: string;
    kind: ActivityKind;
    action: string;
    actor: ActivityActor;
    details?: Record<string, unknown>;
  }[],
): Promise<void> {
  if (entries.length === 0) return;
  await db.query(
    `insert into transaction_activity
       (organization_id, transaction_id, kind, action, actor_type, actor_id, request_id, details)
     select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
       $8::jsonb[])`,
    [
      entries.map((entry) => entry.organizationId),
      entries.map((entry) => entry.transactionId),
      entries.map((entry) => entry.kind),
      entries.map((entry) => entry.action),
      entries.map((entry) => entry.actor.type),
      entries.map((entry) => entry.actor.id),
      entries.map((entry) => entry.actor.requestId ?? null),
      entries.map((entry) => JSON.stringify(entry.details ?? {})),
    ],
  );
}

/** What a recipient did through their link, for the transaction's activity. */
export interface RecipientAct {
  action: 'opened' | 'saved' | 'uploaded' | 'signed' | 'submitted';
  requestId: string;
  /** The client that acted: its address and user agent, kept beside the entry with how it was identified. */
  client?: RecipientClient | undefined;
  details?: Record<string, unknown>;
  /** See `recordActivity`. */
  onceWithinMs?: number;
}

/** The client of a recipient's request: its address and user agent (as `originOf` keeps them). */
export interface RecipientClient {
  ip: string;
  headers: { 'user-agent'?: string | undefined };
}

/** The primary recipient of a transaction (the one its link opens for), and the address the link was mailed to. */
async function primaryOf(
  db: Queryable,
  transactionId: string,
): Promise<{ id: string; email: string } | undefined> {
  const [primary] = await db.query<{ id: string; email: string }>(
    `select r.id, t.notice_email as email from transaction_recipients r join transactions t on t.id = r.transaction_id
     where r.transaction_id = $1 order by r.created_at, r.sequence limit 1`,
    [transactionId],
  );
  return primary;
}

/** Where a recipient's request came from, identified by their link: "the link mailed to jane@example.com". */
export async function linkOrigin(
  db: Queryable,
  transactionId: string,
  client: RecipientClient,
): Promise<ActOrigin> {
  const primary = await primaryOf(db, transactionId);
  return originOf(client, `the link mailed to ${primary?.email ?? 'the recipient'}`);
}

/**
 * Records what the transaction's primary recipient (the one its link opens for) did through their link, in the
 * database transaction of the act, with where the request came from.
 */
export async function recordRecipientAct(
  db: Queryable,
  transaction: { id: string; organizationId: string },
  act: RecipientAct,
): Promise<void> {
  const primary = await primaryOf(db, transaction.id);
  const origin =
    act.client === undefined
      ? undefined
      : originOf(act.client, `the link mailed to ${primary?.email ?? 'the recipient'}`);
  await recordActivity(db, {
    organizationId: transaction.organizationId,
    transactionId: transaction.id,
    kind: 'recipient',
    action: act.action,
    actor: { type: 'recipient', id: primary?.id ?? null, requestId: act.requestId, origin },
    details: act.details,
    onceWithinMs: act.onceWithinMs,
  });
}
