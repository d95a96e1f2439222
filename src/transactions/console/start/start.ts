import type { Database, Queryable, Transaction } from '../../../db/database.ts';
import { AppError, listed, quote } from '../../../errors.ts';
import type { Actor } from '../../actor.ts';
import {
  checkCreateInput,
  createTransaction,
  MAX_INVITATION_NOTE_LENGTH,
  MAX_LINK_VALID_DAYS,
  type CreateTransactionInput,
  type StartedByPerson,
} from '../../create-transaction.ts';
import { ENTITY_TYPES, type EntityType } from '../../entity-types.ts';
import { idempotent } from '../../idempotency.ts';
import { label } from '../../templates/key-words.ts';
import { moneyRulesOf, type MoneyRule } from '../../templates/money-fields.ts';
import type { ItemDefinition, TemplateDefinition } from '../../templates/schema.ts';
import { linkValidDays } from '../../recipients/transmit-tokens.ts';
import { invitationMail } from '../../recipients/mail.ts';
import { actionsOnEntering } from '../../workflow.ts';

/** How an entity type reads in the console's choices. */
export const ENTITY_TYPE_TITLES: Record<EntityType, string> = {
  individual: 'Individual',
  joint: 'Joint holders',
  trust: 'Trust',
  company: 'Company',
  partnership: 'Partnership',
  fund: 'Fund',
  retirement_account: 'Retirement account',
  other: 'Other',
};

/** A choice of a field that offers some: its value, and its title when the schema gives one. */
export interface AnswerChoice {
  value: string | number;
  title: string;
}

/**
 * An answer the template lets the sender fill in when starting a transaction (its `prefill`), as the console's
 * form shows it: by its titles, with what it takes.
 */
export interface PrefillAnswer {
  /** `<item vulcanKey>.<field>`, as `prefill` names it. */
  answer: string;
  /** The field's title (its key in words when the schema gives none). */
  title: string;
  /** The item's title, the form's group. */
  itemTitle: string;
  kind: 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'money' | 'date';
  choices?: AnswerChoice[];
  money?: MoneyRule;
  maxLength?: number;
}

/** A version of a template, as the "New transaction" form offers it. */
export interface StartableTemplate {
  id: string;
  key: string;
  name: string;
  version: number;
  /** Whether it is the key's latest version (the form's default). */
  latest: boolean;
  /** The days its link works unless the sender sets others. */
  linkValidDays: number;
  prefill: PrefillAnswer[];
  /** The answer that is the investor's commitment, when the template marks one. */
  commitment: string | null;
}

/** What the console's "New transaction" form offers an organization. */
export interface StartOptions {
  templates: StartableTemplate[];
  senders: { id: string; name: string }[];
  entityTypes: { value: EntityType; title: string }[];
  limits: { maxLinkValidDays: number; maxNoteLength: number };
}

type PropertySchema = Record<string, unknown>;

function isObject(value: unknown): value is PropertySchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The choices a property offers (`enum`, or `oneOf`/`anyOf` of `const`s with titles), or undefined. */
function choicesOf(property: PropertySchema): AnswerChoice[] | undefined {
  if (Array.isArray(property.enum)) {
    return property.enum
      .filter((value): value is string | number => typeof value === 'string' || typeof value === 'number')
      .map((value) => ({ value, title: String(value) }));
  }
  const options = Array.isArray(property.oneOf) ? property.oneOf : property.anyOf;
  if (!Array.isArray(options) || options.length === 0) return undefined;
  const choices = options.filter(isObject).flatMap((option): AnswerChoice[] => {
    const value = option.const;
    if (typeof value !== 'string' && typeof value !== 'number') return [];
    return [{ value, title: typeof option.title === 'string' ? option.title : String(value) }];
  });
  return choices.length === options.length ? choices : undefined;
}

/** One `prefill` reference of a template as the form shows it, or undefined when it names nothing (unchecked). */
function prefillAnswer(
  items: ReadonlyMap<string, ItemDefinition>,
  answer: string,
): PrefillAnswer | undefined {
  const [vulcanKey = '', field = ''] = answer.split('.');
  const item = items.get(vulcanKey);
  const schema: PropertySchema = item?.schema ?? {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const property = properties[field];
  if (item === undefined || !isObject(property)) return undefined;
  const base = {
    answer,
    title: typeof property.title === 'string' ? property.title : label(field),
    itemTitle: item.title ?? label(vulcanKey),
  };
  const money = moneyRulesOf(item)[field];
  if (money !== undefined) return { ...base, kind: 'money', money };
  const choices = choicesOf(property);
  if (choices !== undefined) return { ...base, kind: 'choice', choices };
  if (property.type === 'boolean') return { ...base, kind: 'boolean' };
  if (property.type === 'integer') return { ...base, kind: 'integer' };
  if (property.type === 'number') return { ...base, kind: 'number' };
  if (property.format === 'date') return { ...base, kind: 'date' };
  const maxLength = typeof property.maxLength === 'number' ? property.maxLength : undefined;
  return { ...base, kind: 'text', ...(maxLength === undefined ? {} : { maxLength }) };
}

/** The items of a template by vulcanKey. */
function itemsOf(definition: TemplateDefinition): Map<string, ItemDefinition> {
  return new Map(
    definition.processes.flatMap((process) => process.items.map((item) => [item.vulcanKey, item] as const)),
  );
}

/** The answers of a template's `prefill`, as the form shows them. */
export function prefillAnswers(definition: TemplateDefinition): PrefillAnswer[] {
  const items = itemsOf(definition);
  return (definition.prefill ?? []).flatMap((answer) => prefillAnswer(items, answer) ?? []);
}

/**
 * What the "New transaction" form offers: every version of every template (latest first within a key), the
 * entities the organization sends from (those it has sent a transaction from, and those no transaction was sent
 * to: an entity made for a new fund), and the entity types.
 */
export async function startOptions(db: Queryable, organizationId: string): Promise<StartOptions> {
  const [templates, senders] = await Promise.all([
    db.query<{ id: string; key: string; name: string; version: number; definition: TemplateDefinition }>(
      // An archived template (console, Templates) starts no new transaction: it is not offered.
      `select id, key, name, version, definition from templates t
       where organization_id = $1
         and not exists (select 1 from template_archives a where a.organization_id = $1 and a.key = t.key)
       order by name, key, version desc`,
      [organizationId],
    ),
    db.query<{ id: string; name: string }>(
      `select e.id, e.name from entities e
       where e.organization_id = $1
         and (exists (select 1 from transactions t where t.sender_entity_id = e.id)
              or not exists (select 1 from transaction_recipients r where r.entity_id = e.id))
       order by e.name, e.id
       limit 500`,
      [organizationId],
    ),
  ]);
  const latest = new Map<string, number>();
  for (const template of templates) {
    latest.set(template.key, Math.max(latest.get(template.key) ?? 0, template.version));
  }
  return {
    templates: templates.map((template) => ({
      id: template.id,
      key: template.key,
      name: template.name,
      version: template.version,
      latest: latest.get(template.key) === template.version,
      linkValidDays: linkValidDays(template.definition),
      prefill: prefillAnswers(template.definition),
      commitment: template.definition.commitment ?? null,
    })),
    senders,
    entityTypes: ENTITY_TYPES.map((value) => ({ value, title: ENTITY_TYPE_TITLES[value] })),
    limits: { maxLinkValidDays: MAX_LINK_VALID_DAYS, maxNoteLength: MAX_INVITATION_NOTE_LENGTH },
  };
}

/** What a person fills in to start one transaction (the console's "New transaction" form). */
export interface StartInput {
  templateId: string;
  senderEntityId: string;
  investor: { name: string; email: string; entityType: EntityType };
  /** Answers by `<item vulcanKey>.<field>`, each one the template's `prefill` lists. */
  answers: Record<string, unknown>;
  linkValidDays?: number | undefined;
  note?: string | undefined;
}

/** An answer's name as a message shows it: as is when it could be `<item vulcanKey>.<field>`, else quoted. */
function shownAnswer(answer: string): string {
  return /^[a-z][a-z0-9_]{0,62}\.[A-Za-z][A-Za-z0-9_]{0,62}$/.test(answer) ? answer : quote(answer);
}

/**
 * The answers as `createTransaction`'s `inputData` (`{item: {field: value}}`), each one checked to be an answer
 * the template lets the sender fill in: BAD_USER_INPUT naming those that are not.
 */
export function inputDataOf(definition: TemplateDefinition, answers: Record<string, unknown>) {
  const allowed = new Set(definition.prefill ?? []);
  const refused = Object.keys(answers).filter((answer) => !allowed.has(answer));
  if (refused.length > 0) {
    throw new AppError(
      'BAD_USER_INPUT',
      `The template does not let the sender fill in ${listed(refused.map(shownAnswer), 'and')}: ${
        allowed.size === 0
          ? 'the investor gives every answer'
          : `the sender may fill in only ${listed([...allowed], 'and')}`
      }.`,
      { field: 'answers' },
    );
  }
  const inputData: Record<string, Record<string, unknown>> = {};
  for (const [answer, value] of Object.entries(answers)) {
    // A blank answer is one not given: the investor fills it in.
    if (value === null || value === '' || value === undefined) continue;
    const [vulcanKey = '', field = ''] = answer.split('.');
    (inputData[vulcanKey] ??= {})[field] = value;
  }
  return inputData;
}

/** The template of a start, the organization's, for its `prefill` (the checks after it name a missing one). */
async function definitionOf(tx: Queryable, organizationId: string, templateId: string) {
  const [found] = await tx.query<{ definition: TemplateDefinition }>(
    'select definition from templates where id = $1 and organization_id = $2',
    [templateId, organizationId],
  );
  return found?.definition;
}

/** `createTransaction`'s input for a start: the investor as its notice, the answers as its inputData. */
function createInputOf(
  definition: TemplateDefinition | undefined,
  input: StartInput,
): CreateTransactionInput & StartedByPerson {
  return {
    templateId: input.templateId,
    senderEntityId: input.senderEntityId,
    noticeName: input.investor.name,
    noticeEmail: input.investor.email,
    noticeEntityType: input.investor.entityType,
    inputData: definition === undefined ? undefined : inputDataOf(definition, input.answers),
    linkValidDays: input.linkValidDays,
    invitationNote: input.note,
  };
}

/** A problem of an answer (`inputDataProblems`) in words: under its field's title, and which answer it is about. */
export interface AnswerProblem {
  /** `<item vulcanKey>.<field>`, or null for a problem of no one answer. */
  answer: string | null;
  message: string;
}

/** `inputDataProblems`' problems under the fields' titles: "Amount: the amount must be at least $1,000.00". */
export function answerProblemsInWords(
  definition: TemplateDefinition,
  problems: readonly string[],
): AnswerProblem[] {
  const titles = new Map(prefillAnswers(definition).map((answer) => [answer.answer, answer.title]));
  return problems.map((problem) => {
    const match = /^inputData\.([a-z][a-z0-9_]*)\.([A-Za-z][A-Za-z0-9_]*)[^:]*: (.*)$/.exec(problem);
    if (match === null) return { answer: null, message: problem };
    const answer = `${match[1] ?? ''}.${match[2] ?? ''}`;
    return { answer, message: `${titles.get(answer) ?? answer}: ${match[3] ?? ''}` };
  });
}

/** The console's name of a field `createTransaction` names, and how its messages read it. */
const CONSOLE_FIELDS: Record<string, { field: string; words: string }> = {
  noticeName: { field: 'investor.name', words: "The investor's name" },
  noticeEmail: { field: 'investor.email', words: "The investor's e-mail address" },
  invitationNote: { field: 'note', words: 'The personal line' },
  linkValidDays: { field: 'linkValidDays', words: 'The days the link works' },
};

/**
 * A refusal of `createTransaction` in the console's words: the form's field names (`investor.email`), and an
 * answer's problems under its title ("Commitment: the amount must be at least $1,000.00"), on the answer's own
 * field (`answers.<item>.<field>`) when they are all of one answer.
 */
function inConsoleWords(error: unknown, definition: TemplateDefinition | undefined): unknown {
  if (!(error instanceof AppError) || typeof error.details?.field !== 'string') return error;
  const { field } = error.details;
  const named = CONSOLE_FIELDS[field];
  if (named !== undefined) {
    const message = error.message.startsWith(field)
      ? named.words + error.message.slice(field.length)
      : error.message;
    return new AppError(error.code, message, { ...error.details, field: named.field });
  }
  const problems = error.details.problems;
  if (field !== 'inputData' || !Array.isArray(problems) || definition === undefined) return error;
  const said = answerProblemsInWords(definition, problems.map(String));
  const answers = new Set(said.flatMap((problem) => (problem.answer === null ? [] : [problem.answer])));
  const [only] = answers;
  const messages = said.map((problem) => problem.message);
  return new AppError(error.code, messages.join('; '), {
    field:
      answers.size === 1 && only !== undefined && said.length === answers.size
        ? `answers.${only}`
        : 'answers',
    problems: messages,
  });
}

/**
 * Starts a transaction from the console: the same domain code, checks and errors as GraphQL's
 * `createTransaction`, run once for one `idempotencyKey` (a double click makes one transaction).
 */
export async function startTransaction(
  db: Database,
  options: { organizationId: string; actor: Actor; input: StartInput; idempotencyKey: string },
): Promise<{ id: string }> {
  const { organizationId, input } = options;
  return idempotent(
    db,
    { organizationId, key: options.idempotencyKey, operation: 'console.startTransaction', input },
    async (tx) => {
      const definition = await definitionOf(tx, organizationId, input.templateId);
      try {
        const created = await createTransaction(tx, {
          organizationId,
          actor: options.actor,
          input: createInputOf(definition, input),
        });
        return { id: created.transactionId };
      } catch (error) {
        throw inConsoleWords(error, definition);
      }
    },
  );
}

/** The invitation mail as the investor would get it, checked as a start is; nothing is written. */
export async function previewInvitation(
  db: Database,
  options: { organizationId: string; input: StartInput; transactionsUrl: string },
): Promise<{ to: string; subject: string; text: string }> {
  const { organizationId } = options;
  return db.transaction(async (tx: Transaction) => {
    const definition = await definitionOf(tx, organizationId, options.input.templateId);
    const input = createInputOf(definition, options.input);
    const checked = await checkCreateInput(tx, { organizationId, input }).catch((error: unknown) => {
      throw inConsoleWords(error, definition);
    });
    const [names] = await tx.query<{ organization: string; sender: string; senderEmail: string | null }>(
      `select o.name as organization, e.name as sender, e.email as "senderEmail"
       from organizations o join entities e on e.organization_id = o.id
       where o.id = $1 and e.id = $2`,
      [organizationId, input.senderEntityId],
    );
    const [template] = await tx.query<{ name: string }>('select name from templates where id = $1', [
      input.templateId,
    ]);
    const mail = invitationMail(
      {
        to: checked.email,
        noticeName: checked.noticeName,
        organizationName: names?.organization ?? '',
        templateName: template?.name ?? '',
        asked: processesAsked(checked.definition),
        contact: { name: names?.sender ?? '', email: names?.senderEmail ?? null },
        // The investor's own link is made when the transaction is: the preview shows where it will be.
        link: `${options.transactionsUrl.replace(/\/+$/, '')}/r/…`,
        expiresAt: new Date(Date.now() + checked.linkValidDays * 24 * 60 * 60 * 1000),
      },
      { note: checked.invitationNote },
    );
    return { to: mail.to, subject: mail.subject, text: mail.text };
  });
}

/**
 * The titles of the processes entering the initial state makes, as the invitation lists them (all of the
 * template's when it makes none there, as the mail of such a transaction does).
 */
function processesAsked(definition: TemplateDefinition): string[] {
  const titles = new Map(definition.processes.map((process) => [process.key, process.title]));
  const made = actionsOnEntering(definition.workflow, definition.workflow.initialState).flatMap((action) =>
    'createProcess' in action ? [action.createProcess] : [],
  );
  return (made.length > 0 ? made : [...titles.keys()]).map((key) => titles.get(key) ?? key);
}
