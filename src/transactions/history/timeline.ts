import type { Queryable } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { linkExpiry, type FileLinks } from '../../files/file-links.ts';
import { fieldInWords } from '../templates/answer-text.ts';
import type { TemplateDefinition } from '../templates/schema.ts';
import type { ActOrigin } from '../actor.ts';
import type { ActorType, TimelineKind } from './kinds.ts';

/** One thing that happened to a transaction. */
export interface TimelineEntry {
  id: string;
  kind: TimelineKind;
  /** What happened: an event key (workflow), or e.g. saved, sent, failed, delivered, commented. */
  action: string;
  at: Date;
  actor: {
    type: ActorType;
    id: string | null;
    /** How the page names them: a person's name, a key's prefix, the recipient's name, or "Portico". */
    label: string;
  };
  requestId: string | null;
  /** What else is known, by kind: states and message, a field, a mail's subject or error, a webhook's answer. */
  details: Record<string, unknown>;
  /**
   * Where the act came from (its request's address and user agent, how the person was identified), while
   * PORTICO_RETENTION's `addresses` keeps it; null for what no request did, or once removed.
   */
  origin: ActOrigin | null;
}

/**
 * Whether a row of `transaction_events` (alias `e`) is a workflow event: the table also logs a recipient's
 * consents (`consent.…`) and the mail that went (`mail.<message>`), which do not move the transaction. SQL over
 * a constant alias, never input.
 */
export const IS_WORKFLOW_EVENT = (e: string) =>
  `${e}.event_key not like 'consent.%' and ${e}.event_key not like 'mail.%'`;

/**
 * The name of a row's actor (alias `row`, with `actor_type` and `actor_id`), as the pages show it: a person's
 * name (else address), an API key's prefix, the recipient's entity's name. SQL over a constant alias, never input.
 */
export const ACTOR_LABEL = (row: string) => `case ${row}.actor_type
  when 'user' then (select coalesce(nullif(u.name, ''), u.email) from users u where u.id::text = ${row}.actor_id)
  when 'api_key' then (select k.display_prefix from api_keys k where k.id::text = ${row}.actor_id)
  when 'recipient' then (select en.name from transaction_recipients r join entities en on en.id = r.entity_id
                         where r.id::text = ${row}.actor_id)
end`;

/** A row's actor with its {@link ACTOR_LABEL}, named even when the label is gone (a removed key or person). */
export function namedActor(row: {
  actorType: ActorType;
  actorId: string | null;
  actorLabel: string | null;
}): {
  type: ActorType;
  id: string | null;
  label: string;
} {
  const fallback =
    row.actorType === 'system' ? 'Portico' : row.actorType === 'recipient' ? 'The recipient' : 'Someone';
  return { type: row.actorType, id: row.actorId, label: row.actorLabel ?? fallback };
}

/** The most entries one read answers, oldest first. */
export const TIMELINE_MAX = 1000;

/**
 * The timeline of a transaction, oldest first, in one statement: its workflow events (`transaction_events`, which
 * also logs the recipient's consents, `consent.…`, and the mail that went, `mail.<message>`),
 * what its recipient did, its mail, the API calls and console actions that changed it (`transaction_activity`),
 * and every attempt to deliver a webhook about it (`webhook_attempts`), each with its actor, named as the page
 * shows them, and the request that did it. Narrowed to some `kinds` or one `actorType` when given.
 * NOT_FOUND for a transaction of another organization.
 */
export async function timelineOf(
  db: Queryable,
  options: {
    organizationId: string;
    transactionId: string;
    kinds?: readonly TimelineKind[] | undefined;
    actorType?: ActorType | undefined;
    /** Signs the link of an event's paper form; without it, the form is named without one. */
    links?: FileLinks | undefined;
  },
): Promise<TimelineEntry[]> {
  const [transaction] = await db.query<{ id: string; definition: TemplateDefinition }>(
    `select t.id, tp.definition from transactions t join templates tp on tp.id = t.template_id
     where t.id = $1 and t.organization_id = $2`,
    [options.transactionId, options.organizationId],
  );
  if (!transaction) throw notFound('transaction');
  const rows = await db.query<
    Omit<TimelineEntry, 'actor'> & { actorType: ActorType; actorId: string | null; actorLabel: string | null }
  >(
    `with entries as (
       select e.id,
         case when e.event_key like 'consent.%' then 'recipient' when e.event_key like 'mail.%' then 'mail'
           else 'workflow' end as kind,
         case when e.event_key like 'mail.%' then 'sent' else e.event_key end as action,
         e.created_at as at, e.sequence, 1 as source, e.actor_type, e.actor_id, e.request_id,
         case when e.event_key like 'mail.%' then jsonb_build_object('message', substr(e.event_key, 6))
           when e.event_key like 'consent.%' then '{}'::jsonb
           when e.paper_file_id is not null then jsonb_build_object('from', e.source_state, 'to', e.target_state,
             'message', e.message, 'onBehalf', true, 'paperForm', (
               select jsonb_build_object('id', f.id, 'name', coalesce(f.override_filename, f.original_filename))
               from files f where f.id = e.paper_file_id))
           else jsonb_build_object('from', e.source_state, 'to', e.target_state, 'message', e.message) end as details
       from transaction_events e where e.transaction_id = $1 and e.organization_id = $4
       union all
       select a.id, a.kind, a.action, a.created_at, a.sequence, 2, a.actor_type, a.actor_id, a.request_id, a.details
       from transaction_activity a where a.transaction_id = $1 and a.organization_id = $4
       union all
       select w.id, 'webhook', case when w.status_code between 200 and 299 then 'delivered' else 'failed' end,
         w.attempted_at, w.sequence, 3, 'system', null, null,
         jsonb_build_object('deliveryId', d.id, 'endpointId', d.endpoint_id, 'url', ep.url, 'eventType', d.event_type,
           'statusCode', w.status_code, 'durationMs', w.duration_ms, 'error', w.error,
           'nextAttemptAt', case when d.status = 'pending' and w.sequence = (
             select max(latest.sequence) from webhook_attempts latest where latest.delivery_id = d.id)
             then d.next_attempt_at end)
       from outbox_events o
       join webhook_deliveries d on d.event_id = o.id
       join webhook_endpoints ep on ep.id = d.endpoint_id
       join webhook_attempts w on w.delivery_id = d.id
       where o.transaction_id = $1 and o.organization_id = $4
     )
     select entries.id, entries.kind, entries.action, entries.at, entries.actor_type as "actorType",
       entries.actor_id as "actorId", entries.request_id as "requestId", entries.details,
       ${ACTOR_LABEL('entries')} as "actorLabel",
       (select json_build_object('ipAddress', o.ip_address, 'userAgent', o.user_agent, 'identifiedBy', o.identified_by)
        from transaction_history_origins o where o.entry_id = entries.id) as origin
     from entries
     where ($2::text[] is null or entries.kind = any($2::text[])) and ($3::text is null or entries.actor_type = $3)
     order by entries.at, entries.source, entries.sequence
     limit ${String(TIMELINE_MAX)}`,
    [options.transactionId, options.kinds ?? null, options.actorType ?? null, options.organizationId],
  );
  const comments = rows.some((row) => typeof row.details.commentId === 'string')
    ? await db.query<CommentFacts>(
        `select id, vulcan_key as "vulcanKey", field, body, for_investor as "forInvestor" from review_comments
         where organization_id = $1 and transaction_id = $2`,
        [options.organizationId, options.transactionId],
      )
    : [];
  const expiresAt = linkExpiry();
  return rows.map(({ actorType, actorId, actorLabel, ...entry }) => ({
    ...inWords(withPaperFormLink(entry, options.links, expiresAt), transaction.definition, comments),
    actor: namedActor({ actorType, actorId, actorLabel }),
  }));
}

/** An event run on the recipient's behalf with its paper form's download link (`downloadPath`) for its id. */
function withPaperFormLink<Entry extends Omit<TimelineEntry, 'actor'>>(
  entry: Entry,
  links: FileLinks | undefined,
  expiresAt: Date,
): Entry {
  const form = entry.details.paperForm as { id: string; name: string } | null | undefined;
  if (!form) return entry;
  const paperForm = {
    name: form.name,
    ...(links ? { downloadPath: links.pathFor(form.id, expiresAt) } : {}),
  };
  return { ...entry, details: { ...entry.details, paperForm } };
}

/** A comment, as a timeline entry about it tells it. */
interface CommentFacts {
  id: string;
  vulcanKey: string;
  field: string;
  body: string;
  forInvestor: boolean;
}

/** An item's title, else its key. */
function itemInWords(definition: TemplateDefinition, vulcanKey: string): string {
  return (
    definition.processes.flatMap((process) => process.items).find((item) => item.vulcanKey === vulcanKey)
      ?.title ?? vulcanKey
  );
}

/**
 * The details of an entry that name the template's parts by key, in its words instead: an item, a field (`on`),
 * a document, a process, by their titles; a comment with its text and who reads it. Ids the page cannot use
 * (a comment's) are left out.
 */
function detailsInWords(
  details: Record<string, unknown>,
  definition: TemplateDefinition,
  comments: readonly CommentFacts[],
): Record<string, unknown> {
  const { vulcanKey, field, documentKey, processKey, commentId, ...rest } = details;
  const words: Record<string, unknown> = {};
  const comment = comments.find((candidate) => candidate.id === commentId);
  if (comment) {
    words.on = fieldInWords(definition, comment.vulcanKey, comment.field);
    words.comment = comment.body;
  } else if (typeof vulcanKey === 'string') {
    if (typeof field === 'string') words.on = fieldInWords(definition, vulcanKey, field);
    else words.item = itemInWords(definition, vulcanKey);
  }
  if (typeof documentKey === 'string') {
    const documents = definition.processes.flatMap((process) => process.documents ?? []);
    words.document = documents.find((document) => document.key === documentKey)?.title ?? documentKey;
  }
  if (typeof processKey === 'string') {
    words.process = definition.processes.find((process) => process.key === processKey)?.title ?? processKey;
  }
  return { ...words, ...rest };
}

/**
 * An entry in the template's words: its details ({@link detailsInWords}); a comment's who reads it; a
 * recipient's consent with the field it was given on. The certificate of completion words its acts so too.
 */
export function inWords<Entry extends Omit<TimelineEntry, 'actor'>>(
  entry: Entry,
  definition: TemplateDefinition,
  comments: readonly CommentFacts[],
): Entry {
  const consent = /^consent\.(given|withdrawn)\.([^.]+)\.(.+)$/.exec(entry.action);
  if (entry.kind === 'recipient' && consent) {
    const [, act = '', vulcanKey = '', field = ''] = consent;
    return {
      ...entry,
      action: `consent ${act}`,
      details: { to: fieldInWords(definition, vulcanKey, field) },
    };
  }
  const details = detailsInWords(entry.details, definition, comments);
  const comment = comments.find((candidate) => candidate.id === entry.details.commentId);
  if (entry.action === 'commented' && comment) {
    details.readBy = comment.forInvestor ? 'the investor' : 'your team only (an internal note)';
    delete details.forInvestor;
  }
  return { ...entry, details };
}
