import type { Transaction } from '../db/database.ts';
import { oneRow } from '../db/one-row.ts';
import { AppError, blank, isNot, quote, tooLong, unknownReference } from '../errors.ts';
import type { Actor } from './actor.ts';
import { moneyValueProblem } from './templates/money-fields.ts';
import { itemRules, listProblems, MAX_PROBLEM_DETAILS } from './templates/item-data.ts';
import { queueInvitation } from './recipients/notice-queue.ts';
import { applyWorkflowAction } from './revisions.ts';
import type { Subject } from './subject.ts';
import type { TemplateDefinition } from './templates/schema.ts';
import { recordTransition } from './transitions.ts';
import { linkValidDays, newTransmitToken } from './recipients/transmit-tokens.ts';
import { actionsOnEntering } from './workflow.ts';
import type { EntityType } from './entity-types.ts';

/** What an integrator sends to create a transaction (`createTransaction`'s input). */
export interface CreateTransactionInput {
  templateId: string;
  senderEntityId: string;
  noticeEmail: string;
  noticeName: string;
  inputData?: unknown;
}

/** What the console adds to an integrator's input when a person starts a transaction. */
export interface StartedByPerson {
  /** What kind of party a new investor entity is. @default 'individual' (an entity found by address keeps its own) */
  noticeEntityType?: EntityType | undefined;
  /** Days the investor's link works, instead of the template's `invitations.linkValidDays`. */
  linkValidDays?: number | undefined;
  /** A personal line quoted in the invitation mail. */
  invitationNote?: string | undefined;
  /** The closing the transaction is made for (console/closings). */
  closingId?: string | undefined;
}

/** The longest personal line an invitation quotes. */
export const MAX_INVITATION_NOTE_LENGTH = 1000;
/** The most days a link may be made to work for (as a template's `invitations.linkValidDays`). */
export const MAX_LINK_VALID_DAYS = 365;

/** The longest e-mail address SMTP carries (RFC 5321: a 256-octet path, less its angle brackets). */
const MAX_EMAIL_LENGTH = 254;
/** The longest name notices are addressed to. */
const MAX_NOTICE_NAME_LENGTH = 200;
// Something@domain.tld, with no spaces and one @. The parts of the domain are split at dots that neither part
// may hold, so no text can be matched two ways and checking takes time in proportion to its length.
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/** The form of a template's keys (templates/schema.ts), vulcanKeys among them. */
const VULCAN_KEY = /^[a-z][a-z0-9_]{0,62}$/;

/** Stands for a problem counted but never shown (see inputDataProblems). */
const UNSHOWN_PROBLEM = 'inputData: no item of the template has this vulcanKey';

/** A key of inputData as a message shows it: as is if it could be a vulcanKey, else quoted and cut short. */
function shownKey(key: string): string {
  return VULCAN_KEY.test(key) ? key : quote(key);
}

/**
 * Checks inputData against the template's items: an object keyed by item vulcanKey, each value valid so far.
 * Each problem reads `inputData.<vulcanKey>.<field>…: <what is wrong>`.
 */
export function inputDataProblems(definition: TemplateDefinition, inputData: unknown): string[] {
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
      // A money field's own check says a bound in the currency's words ("at least $1,000.00"), not the
      // schema's ("must be >= 100000", in cents): the schema's bounds of it are left to that.
      const money = Object.keys(item.money ?? {});
      const moneyBound = (problem: string) =>
        money.some((field) => problem.startsWith(`${field}.amount: must be `)) &&
        /: must be [<>]=? /.test(problem);
      for (const problem of itemRules(item).problems(data)) {
        if (!moneyBound(problem)) problems.push(`inputData.${vulcanKey}.${problem}`);
      }
      for (const field of Object.keys(item.uploads ?? {})) {
        if (typeof data === 'object' && data !== null && Object.hasOwn(data, field)) {
          problems.push(`inputData.${vulcanKey}.${field}: is answered by the recipient's upload`);
        }
      }
      for (const [field, money] of Object.entries(item.money ?? {})) {
        const value =
          typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[field] : undefined;
        const problem = value === undefined ? undefined : moneyValueProblem(value, money);
        if (problem !== undefined) problems.push(`inputData.${vulcanKey}.${field}: ${problem}`);
      }
      for (const field of itemRules(item).consents) {
        if (typeof data === 'object' && data !== null && Object.hasOwn(data, field)) {
          problems.push(`inputData.${vulcanKey}.${field}: is a consent only the recipient gives`);
        }
      }
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

/** The notice name and e-mail address as stored (trimmed), or BAD_USER_INPUT naming the field. */
export function checkNotice(input: Pick<CreateTransactionInput, 'noticeName' | 'noticeEmail'>): {
  noticeName: string;
  email: string;
} {
  const noticeName = input.noticeName.trim();
  if (noticeName === '') throw blank('noticeName', { field: 'noticeName' });
  if (noticeName.length > MAX_NOTICE_NAME_LENGTH) {
    throw tooLong('noticeName', MAX_NOTICE_NAME_LENGTH, { field: 'noticeName' });
  }
  const email = input.noticeEmail.trim();
  // Length first, so that nothing else ever looks at a long text.
  if (email.length > MAX_EMAIL_LENGTH)
    throw tooLong('noticeEmail', MAX_EMAIL_LENGTH, { field: 'noticeEmail' });
  if (!EMAIL.test(email)) throw isNot(email, 'an e-mail address', { field: 'noticeEmail' });
  return { noticeName, email };
}

/** The personal line as stored (trimmed; null when blank), or BAD_USER_INPUT naming the field. */
function checkNote(note: string | undefined): string | null {
  const trimmed = note?.trim() ?? '';
  if (trimmed.length > MAX_INVITATION_NOTE_LENGTH) {
    throw tooLong('invitationNote', MAX_INVITATION_NOTE_LENGTH, { field: 'invitationNote' });
  }
  return trimmed === '' ? null : trimmed;
}

/** The days a link works, as asked, or BAD_USER_INPUT naming the field. */
function checkLinkDays(days: number | undefined, definition: TemplateDefinition): number {
  if (days === undefined) return linkValidDays(definition);
  if (!Number.isInteger(days) || days < 1 || days > MAX_LINK_VALID_DAYS) {
    throw new AppError(
      'BAD_USER_INPUT',
      `linkValidDays must be a whole number of days from 1 to ${String(MAX_LINK_VALID_DAYS)}.`,
      {
        field: 'linkValidDays',
      },
    );
  }
  return days;
}

/**
 * Checks what `createTransaction` would check, writing nothing: the notice's name and address, both ids, the
 * answers prefilled, the link's days and the personal line. Returns what the transaction would be made of.
 */
export async function checkCreateInput(
  tx: Transaction,
  options: { organizationId: string; input: CreateTransactionInput & StartedByPerson },
): Promise<{
  noticeName: string;
  email: string;
  definition: TemplateDefinition;
  linkValidDays: number;
  invitationNote: string | null;
}> {
  const { input } = options;
  const notice = checkNotice(input);
  const invitationNote = checkNote(input.invitationNote);
  const definition = await checkReferences(tx, options.organizationId, input);
  return {
    ...notice,
    definition,
    linkValidDays: checkLinkDays(input.linkValidDays, definition),
    invitationNote,
  };
}

/** The template's definition, once both ids are known to be the organization's and inputData fits. */
async function checkReferences(
  tx: Transaction,
  organizationId: string,
  input: CreateTransactionInput,
): Promise<TemplateDefinition> {
  // One statement checks both ids against the caller's organization.
  const [found] = await tx.query<{
    definition: TemplateDefinition | null;
    sender: boolean;
    archived: { key: string; name: string } | null;
  }>(
    `select (select definition from templates where id = $1 and organization_id = $3) as definition,
       exists (select 1 from entities where id = $2 and organization_id = $3) as sender,
       (select json_build_object('key', t.key, 'name', t.name) from templates t
          join template_archives a on a.organization_id = t.organization_id and a.key = t.key
        where t.id = $1 and t.organization_id = $3) as archived`,
    [input.templateId, input.senderEntityId, organizationId],
  );
  if (!found?.definition) throw unknownReference('template', input.templateId, 'templateId');
  if (found.archived) throw templateArchived(found.archived);
  if (!found.sender) throw unknownReference('entity', input.senderEntityId, 'senderEntityId');
  const problems = inputDataProblems(found.definition, input.inputData);
  if (problems.length > 0) {
    throw new AppError(
      'BAD_USER_INPUT',
      `inputData does not fit the template's items: ${listProblems(problems)}`,
      { field: 'inputData', problems: problems.slice(0, MAX_PROBLEM_DETAILS) },
    );
  }
  return found.definition;
}

/**
 * TEMPLATE_ARCHIVED: an admin archived the template (every version of its key) in the console, so it starts no new
 * transaction; those made before go on.
 */
export function templateArchived(template: { key: string; name: string }): AppError {
  return new AppError(
    'TEMPLATE_ARCHIVED',
    `The template ${quote(template.name)} is archived: it starts no new transaction. An admin may restore it in the console's Templates.`,
    { field: 'templateId', templateKey: template.key },
  );
}

/**
 * Creates a transaction in its workflow's initial state, with its primary recipient (the organization's entity
 * with that e-mail address, or a new one) and what entering the initial state does (its processes, prefilled
 * from inputData). Bad input writes nothing and names the field.
 */
export async function createTransaction(
  tx: Transaction,
  options: { organizationId: string; actor: Actor; input: CreateTransactionInput & StartedByPerson },
): Promise<{ transactionId: string; transmitToken: string }> {
  const { organizationId, input } = options;
  const checked = await checkCreateInput(tx, options);
  const { noticeName, email, definition, invitationNote } = checked;

  const initial = definition.workflow.initialState;
  const { transmitToken, hash } = newTransmitToken();
  const primaryRole = definition.recipientRoles.find((role) => role.primary === true)?.key ?? 'recipient';
  // The transaction and its primary recipient (the organization's entity with that address, or a new one), in
  // one statement.
  const created = await oneRow<{ id: string }>(
    tx,
    `with made_transaction as (
       insert into transactions
         (organization_id, template_id, sender_entity_id, state, input_data, notice_name, notice_email,
          transmit_token_hash, transmit_token_expires_at, invitation_note, closing_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, clock_timestamp() + make_interval(days => $9), $11, $13)
       returning id),
     known as (
       select id from entities where organization_id = $1 and lower(email) = lower($7)
       order by created_at, sequence limit 1),
     made_entity as (
       insert into entities (organization_id, name, email, type)
       select $1, $6, $7, $12 where not exists (select 1 from known) returning id),
     recipient as (
       insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key)
       select $1, made_transaction.id, entity.id, $10
       from made_transaction, (select id from known union all select id from made_entity) as entity)
     select id from made_transaction`,
    [
      organizationId,
      input.templateId,
      input.senderEntityId,
      initial,
      input.inputData ?? null,
      noticeName,
      email,
      hash,
      checked.linkValidDays,
      primaryRole,
      invitationNote,
      input.noticeEntityType ?? 'individual',
      input.closingId ?? null,
    ],
  );
  const transactionId = created.id;
  const subject: Subject = {
    id: transactionId,
    organizationId,
    senderEntityId: input.senderEntityId,
    definition,
    inputData: (input.inputData ?? {}) as Record<string, unknown>,
  };
  await recordTransition(tx, subject, {
    eventKey: 'create',
    source: null,
    target: initial,
    actor: options.actor,
  });
  for (const action of actionsOnEntering(definition.workflow, initial))
    await applyWorkflowAction(tx, subject, action, 'create');
  // No completion to bring up to date: a process is complete only once a revision of it was committed, and
  // every revision made here is new.
  // Mailed after this commits (recipients/notice-sender.ts), so a transaction that is not made invites no one.
  await queueInvitation(tx, {
    organizationId,
    transactionId,
    transmitToken,
    requestId: options.actor.requestId,
  });
  return { transactionId, transmitToken };
}
