import { createHash, randomUUID } from 'node:crypto';
import type { Transaction } from '../db/database.ts';
import { AppError, quote } from '../errors.ts';
import { itemRules, listProblems, MAX_PROBLEM_DETAILS } from './item-data.ts';
import type { TemplateDefinition, WorkflowAction } from './template-schema.ts';
import { actionsOnEntering, decide } from './workflow.ts';

/**
 * Creating transactions and moving them through their workflow. Every function runs inside the caller's
 * database transaction (see `idempotent`), so a change, its event log entry, its outbox rows and the
 * completion it causes commit together or not at all.
 */

/** Who causes a change: an integrator's API key, a recipient, or Portico itself. */
export interface Actor {
  type: 'api_key' | 'recipient' | 'system';
  id: string | null;
}

export interface CreateTransactionInput {
  templateId: string;
  senderEntityId: string;
  noticeEmail: string;
  noticeName: string;
  inputData?: unknown;
}

/** The longest e-mail address SMTP carries (RFC 5321: a 256-octet path, less its angle brackets). */
const MAX_EMAIL_LENGTH = 254;
/** The longest name notices are addressed to. */
const MAX_NOTICE_NAME_LENGTH = 200;
// Something@domain.tld, with no spaces and one @. The parts of the domain are split at dots that neither part
// may hold, so no text can be matched two ways and checking takes time in proportion to its length.
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/** The state of one transaction while a change is applied to it. */
export interface Subject {
  id: string;
  organizationId: string;
  senderEntityId: string;
  definition: TemplateDefinition;
  inputData: Record<string, unknown>;
}

async function insertId(tx: Transaction, sql: string, params: unknown[]): Promise<string> {
  const [row] = await tx.query<{ id: string }>(`${sql} returning id`, params);
  if (!row) throw new Error('insert returned no row');
  return row.id;
}

function itemsOf(definition: TemplateDefinition, processKey: string) {
  return definition.processes.find((process) => process.key === processKey)?.items ?? [];
}

/** The form of a template's keys (template-schema.ts), vulcanKeys among them. */
const VULCAN_KEY = /^[a-z][a-z0-9_]{0,62}$/;

/** A key of inputData as a message shows it: as is if it could be a vulcanKey, else quoted and cut short. */
function shownKey(key: string): string {
  return VULCAN_KEY.test(key) ? key : quote(key);
}

/** Checks inputData against the template's items: an object keyed by item vulcanKey, each value valid so far. */
function inputDataProblems(definition: TemplateDefinition, inputData: unknown): string[] {
  if (inputData === undefined || inputData === null) return [];
  if (typeof inputData !== 'object' || Array.isArray(inputData)) {
    return ['inputData: must be an object keyed by item vulcanKey'];
  }
  const items = new Map(
    definition.processes.flatMap((process) => process.items.map((item) => [item.vulcanKey, item])),
  );
  const problems: string[] = [];
  for (const [vulcanKey, data] of Object.entries(inputData as Record<string, unknown>)) {
    const item = items.get(vulcanKey);
    if (item) {
      for (const problem of itemRules(item.schema).problems(data))
        problems.push(`inputData.${vulcanKey}.${problem}`);
    } else {
      // Past what an error shows, an unknown key only counts: a body of 30,000 of them need not make 30,000 texts.
      problems.push(
        problems.length < MAX_PROBLEM_DETAILS
          ? `inputData.${shownKey(vulcanKey)}: no item of the template has this vulcanKey`
          : UNSHOWN_PROBLEM,
      );
    }
  }
  return problems;
}

/** Stands for a problem counted but never shown (see inputDataProblems). */
const UNSHOWN_PROBLEM = 'inputData: no item of the template has this vulcanKey';

/**
 * Writes an outbox row for the webhook service, in the database transaction of the change it reports: it is
 * never lost, and never sent for a change that rolled back.
 */
async function writeOutbox(
  tx: Transaction,
  subject: Subject,
  type: 'transaction.state_changed' | 'transaction.completed',
  facts: Record<string, unknown>,
): Promise<void> {
  await tx.query(
    'insert into outbox_events (organization_id, type, transaction_id, payload) values ($1, $2, $3, $4)',
    [
      subject.organizationId,
      type,
      subject.id,
      { transactionId: subject.id, organizationId: subject.organizationId, ...facts },
    ],
  );
}

async function recordEvent(
  tx: Transaction,
  subject: Subject,
  change: { eventKey: string; source: string | null; target: string; actor: Actor },
): Promise<void> {
  await tx.query(
    `insert into transaction_events (organization_id, transaction_id, event_key, source_state, target_state, actor_type, actor_id)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [
      subject.organizationId,
      subject.id,
      change.eventKey,
      change.source,
      change.target,
      change.actor.type,
      change.actor.id,
    ],
  );
  await writeOutbox(tx, subject, 'transaction.state_changed', {
    eventKey: change.eventKey,
    previousState: change.source,
    state: change.target,
  });
}

/** Opens revision `number` of a process with one item per template item, computing each item's completion. */
async function openRevision(
  tx: Transaction,
  subject: Subject,
  process: { id: string; key: string },
  number: number,
  context: Record<string, unknown>,
  dataFor: (vulcanKey: string) => unknown,
): Promise<void> {
  const revisionId = await insertId(
    tx,
    `insert into transaction_process_revisions (organization_id, transaction_process_id, transaction_id, number, context)
     values ($1, $2, $3, $4, $5)`,
    [subject.organizationId, process.id, subject.id, number, context],
  );
  // One statement for all the items, in the template's order (their sequence follows it).
  const items = itemsOf(subject.definition, process.key).map((item) => {
    const data = dataFor(item.vulcanKey) ?? {};
    return { vulcanKey: item.vulcanKey, data, completion: itemRules(item.schema).completion(data) };
  });
  await tx.query(
    `insert into transaction_items
       (organization_id, transaction_process_revision_id, transaction_id, vulcan_key, data, completion_percentage)
     select $1, $2, $3, item->>'vulcanKey', item->'data', (item->>'completion')::int
     from jsonb_array_elements($4::jsonb) with ordinality as items(item, position) order by position`,
    [subject.organizationId, revisionId, subject.id, JSON.stringify(items)],
  );
}

async function applyAction(
  tx: Transaction,
  subject: Subject,
  action: WorkflowAction,
  reason: string,
): Promise<void> {
  if ('addRecipient' in action) {
    // Template checks allow addRecipient for sender roles only: the sender entity takes the role.
    await tx.query(
      `insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key)
       values ($1, $2, $3, $4) on conflict do nothing`,
      [subject.organizationId, subject.id, subject.senderEntityId, action.addRecipient],
    );
    return;
  }
  const key = 'createProcess' in action ? action.createProcess : action.openRevision;
  const [created] = await tx.query<{ id: string }>(
    `insert into transaction_processes (organization_id, transaction_id, key) values ($1, $2, $3)
     on conflict (transaction_id, key) do nothing returning id`,
    [subject.organizationId, subject.id, key],
  );
  if (created) {
    await openRevision(
      tx,
      subject,
      { id: created.id, key },
      1,
      { reason },
      (vulcanKey) => subject.inputData[vulcanKey],
    );
    return;
  }
  if ('createProcess' in action) return;
  const [existing] = await tx.query<{ id: string }>(
    'select id from transaction_processes where transaction_id = $1 and key = $2',
    [subject.id, key],
  );
  if (!existing) throw new Error(`process ${key} vanished`);
  if ('createProcess' in action) return;
  // A new revision: new items carrying the latest data forward; earlier revisions stay as they were.
  const latest = await tx.query<{ number: number; vulcanKey: string; data: unknown }>(
    `select r.number, i.vulcan_key as "vulcanKey", i.data
     from transaction_process_revisions r left join transaction_items i on i.transaction_process_revision_id = r.id
     where r.transaction_process_id = $1 and r.number = (
       select max(number) from transaction_process_revisions where transaction_process_id = $1)`,
    [existing.id],
  );
  const data = new Map(latest.map((row) => [row.vulcanKey, row.data]));
  await openRevision(tx, subject, { id: existing.id, key }, (latest[0]?.number ?? 0) + 1, { reason }, (k) =>
    data.get(k),
  );
  await tx.query(
    `update transaction_signature_containers set state = 'voided' where transaction_process_id = $1 and state <> 'voided'`,
    [existing.id],
  );
  await tx.query('update transaction_processes set completed_at = null where id = $1', [existing.id]);
}

/**
 * Brings completion up to date after a change: a process is complete when its latest revision is committed,
 * every item of it is at 100% and every document of the process is signed since that revision; a transaction
 * once every process that exists is. Completing a transaction writes its `transaction.completed` outbox row.
 */
export async function refreshCompletion(tx: Transaction, subject: Subject): Promise<void> {
  const processes = await tx.query<{
    id: string;
    key: string;
    wasComplete: boolean;
    done: boolean;
    signed: string[];
  }>(
    `select p.id, p.key, p.completed_at is not null as "wasComplete",
       coalesce(r.committed_at is not null and not exists (
         select 1 from transaction_items i where i.transaction_process_revision_id = r.id and i.completion_percentage < 100
       ), false) as done,
       array(select c.document_key from transaction_signature_containers c
             where c.transaction_process_id = p.id and c.state = 'completed' and c.created_at >= r.created_at) as signed
     from transaction_processes p
     left join lateral (
       select id, committed_at, created_at from transaction_process_revisions
       where transaction_process_id = p.id order by number desc limit 1
     ) r on true
     where p.transaction_id = $1`,
    [subject.id],
  );
  let allComplete = processes.length > 0;
  for (const process of processes) {
    const documents = subject.definition.processes.find((p) => p.key === process.key)?.documents ?? [];
    const complete = process.done && documents.every((document) => process.signed.includes(document.key));
    allComplete &&= complete;
    if (complete === process.wasComplete) continue;
    await tx.query(
      `update transaction_processes set completed_at = case when $2 then clock_timestamp() end where id = $1`,
      [process.id, complete],
    );
  }
  if (!allComplete) return;
  const [completed] = await tx.query<{ state: string; completedAt: Date }>(
    `update transactions set completed_at = clock_timestamp(), updated_at = clock_timestamp()
     where id = $1 and completed_at is null returning state, completed_at as "completedAt"`,
    [subject.id],
  );
  if (completed) {
    await writeOutbox(tx, subject, 'transaction.completed', {
      state: completed.state,
      completedAt: completed.completedAt,
    });
  }
}

/** A transmit token: 122 random bits in UUID form (as the spec types it); only its SHA-256 is stored. */
export function hashTransmitToken(token: string): Buffer {
  return createHash('sha256').update(token.toLowerCase()).digest();
}

/**
 * Creates a transaction in its workflow's initial state, with its primary recipient (the organization's entity
 * with that e-mail address, or a new one) and what entering the initial state does (its processes, prefilled
 * from inputData). Bad input writes nothing and names the field.
 */
export async function createTransaction(
  tx: Transaction,
  options: { organizationId: string; actor: Actor; input: CreateTransactionInput },
): Promise<{ transactionId: string; transmitToken: string }> {
  const { organizationId, input } = options;
  const field = (name: string, message: string) => new AppError('BAD_USER_INPUT', message, { field: name });
  const noticeName = input.noticeName.trim();
  if (noticeName === '') throw field('noticeName', 'noticeName must not be blank');
  if (noticeName.length > MAX_NOTICE_NAME_LENGTH) {
    throw field(
      'noticeName',
      `noticeName must be at most ${MAX_NOTICE_NAME_LENGTH} characters (it has ${noticeName.length})`,
    );
  }
  const email = input.noticeEmail.trim();
  // Length first, so that nothing else ever looks at a long text.
  if (email.length > MAX_EMAIL_LENGTH) {
    throw field(
      'noticeEmail',
      `noticeEmail must be at most ${MAX_EMAIL_LENGTH} characters, as e-mail addresses are (it has ${email.length})`,
    );
  }
  if (!EMAIL.test(email)) throw field('noticeEmail', `${quote(email)} is not an e-mail address`);
  // One statement checks both ids against the caller's organization.
  const [found] = await tx.query<{ definition: TemplateDefinition | null; sender: boolean }>(
    `select (select definition from templates where id = $1 and organization_id = $3) as definition,
       exists (select 1 from entities where id = $2 and organization_id = $3) as sender`,
    [input.templateId, input.senderEntityId, organizationId],
  );
  if (!found?.definition) throw field('templateId', `no template with id ${quote(input.templateId)}`);
  if (!found.sender) throw field('senderEntityId', `no entity with id ${quote(input.senderEntityId)}`);
  const template = { definition: found.definition };
  const problems = inputDataProblems(template.definition, input.inputData);
  if (problems.length > 0) {
    throw new AppError(
      'BAD_USER_INPUT',
      `inputData does not fit the template's items: ${listProblems(problems)}`,
      { field: 'inputData', problems: problems.slice(0, MAX_PROBLEM_DETAILS) },
    );
  }

  const { definition } = template;
  const initial = definition.workflow.initialState;
  const transmitToken = randomUUID();
  const transactionId = await insertId(
    tx,
    `insert into transactions
       (organization_id, template_id, sender_entity_id, state, input_data, notice_name, notice_email, transmit_token_hash)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      organizationId,
      input.templateId,
      input.senderEntityId,
      initial,
      input.inputData ?? null,
      noticeName,
      email,
      hashTransmitToken(transmitToken),
    ],
  );
  const subject: Subject = {
    id: transactionId,
    organizationId,
    senderEntityId: input.senderEntityId,
    definition,
    inputData: (input.inputData ?? {}) as Record<string, unknown>,
  };
  const [known] = await tx.query<{ id: string }>(
    'select id from entities where organization_id = $1 and lower(email) = lower($2) order by created_at, sequence limit 1',
    [organizationId, email],
  );
  const entityId =
    known?.id ??
    (await insertId(
      tx,
      `insert into entities (organization_id, name, email, type) values ($1, $2, $3, 'individual')`,
      [organizationId, noticeName, email],
    ));
  const primaryRole = definition.recipientRoles.find((role) => role.primary === true)?.key ?? 'recipient';
  await tx.query(
    'insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key) values ($1, $2, $3, $4)',
    [organizationId, transactionId, entityId, primaryRole],
  );
  await recordEvent(tx, subject, { eventKey: 'create', source: null, target: initial, actor: options.actor });
  for (const action of actionsOnEntering(definition.workflow, initial))
    await applyAction(tx, subject, action, 'create');
  await refreshCompletion(tx, subject);
  return { transactionId, transmitToken };
}

/** A transaction locked for a change, with what the change needs to know. */
export interface LockedTransaction extends Subject {
  state: string;
}

/**
 * Locks a transaction of an organization (by id) or of a recipient (by transmit token) for the rest of the
 * database transaction, so that changes to one transaction apply one after the other.
 */
export async function lockTransaction(
  tx: Transaction,
  by: { id: string; organizationId: string } | { transmitToken: string },
): Promise<LockedTransaction | undefined> {
  const [where, params] =
    'transmitToken' in by
      ? ['t.transmit_token_hash = $1', [hashTransmitToken(by.transmitToken)]]
      : ['t.id = $1 and t.organization_id = $2', [by.id, by.organizationId]];
  const [row] = await tx.query<LockedTransaction>(
    `select t.id, t.organization_id as "organizationId", t.state, t.sender_entity_id as "senderEntityId",
       coalesce(t.input_data, '{}'::jsonb) as "inputData", tp.definition
     from transactions t join templates tp on tp.id = t.template_id
     where ${where} for update of t`,
    params,
  );
  return row;
}

/** Locks a transaction of the organization, or answers NOT_FOUND (another organization's reads the same). */
export async function lockOwnTransaction(
  tx: Transaction,
  options: { id: string; organizationId: string },
): Promise<LockedTransaction> {
  const subject = await lockTransaction(tx, options);
  if (!subject)
    throw new AppError('NOT_FOUND', `no transaction with id ${quote(options.id)}`, {
      field: 'transactionId',
    });
  return subject;
}

/**
 * Applies a workflow event to a locked transaction: the transition, its log entry and outbox row, the actions of
 * the state it enters, and completion. Refused (INVALID_EVENT, with the current state and the events allowed)
 * when the event is unknown, not allowed from the current state or its guard does not hold.
 */
export async function applyEvent(
  tx: Transaction,
  subject: LockedTransaction,
  eventKey: string,
  actor: Actor,
): Promise<{ sourceStateKey: string | null; targetStateKey: string }> {
  const [open] = await tx.query(
    'select 1 from transaction_processes where transaction_id = $1 and completed_at is null limit 1',
    [subject.id],
  );
  const decision = decide(subject.definition.workflow, subject.state, eventKey, {
    allProcessesComplete: !open,
  });
  if (!decision.ok) {
    throw new AppError('INVALID_EVENT', decision.message, {
      currentState: subject.state,
      allowedEvents: decision.allowed,
    });
  }
  await tx.query('update transactions set state = $2, updated_at = clock_timestamp() where id = $1', [
    subject.id,
    decision.target,
  ]);
  subject.state = decision.target;
  await recordEvent(tx, subject, { eventKey, source: decision.source, target: decision.target, actor });
  for (const action of decision.actions) await applyAction(tx, subject, action, eventKey);
  await refreshCompletion(tx, subject);
  return { sourceStateKey: decision.source, targetStateKey: decision.target };
}

/**
 * Replaces a transaction's transmit token: the new one is returned once, the old one stops working at once
 * (e.g. when a recipient's link was forwarded by mistake).
 */
export async function resetTransmitToken(
  tx: Transaction,
  options: { organizationId: string; transactionId: string },
): Promise<{ transactionId: string; transmitToken: string }> {
  const transmitToken = randomUUID();
  const [row] = await tx.query<{ id: string }>(
    `update transactions set transmit_token_hash = $3, updated_at = clock_timestamp()
     where id = $1 and organization_id = $2 returning id`,
    [options.transactionId, options.organizationId, hashTransmitToken(transmitToken)],
  );
  if (!row) {
    throw new AppError('NOT_FOUND', `no transaction with id ${quote(options.transactionId)}`, {
      field: 'transactionId',
    });
  }
  return { transactionId: row.id, transmitToken };
}

/** `triggerTransactionEvent`: an integrator applies a workflow event to a transaction of its organization. */
export async function triggerTransactionEvent(
  tx: Transaction,
  options: { organizationId: string; actor: Actor; input: { transactionId: string; eventKey: string } },
): Promise<{ sourceStateKey: string | null; targetStateKey: string }> {
  const { input } = options;
  const subject = await lockOwnTransaction(tx, {
    id: input.transactionId,
    organizationId: options.organizationId,
  });
  return applyEvent(tx, subject, input.eventKey, options.actor);
}
