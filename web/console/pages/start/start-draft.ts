// What the "New transaction" form holds, kept in the tab's sessionStorage as it is typed, so that a reload (or a
// phone that dropped the page) loses nothing, and cleared once the transaction is started; and what it means:
// the body the routes take, or what is wrong with it, beside which field.

import { useCallback, useLayoutEffect, useState } from 'react';
import type { SuccessOf } from '../../../../src/http/contract.ts';
import type { ConsoleRoutes, PrefillAnswer } from '../../../../src/transactions/console/contract.ts';
import type { ApiError } from '../../../shared/api-error.ts';
import type { InputOf } from '../../../shared/contract-client.ts';
import { emailProblem } from '../../../shared/form/checks.ts';
import { locale } from '../../../shared/format.ts';
import { answerId, answersOf, sentence, type TypedAnswers } from './prefill-fields.tsx';

/** What the form offers: the templates' versions, the senders, the entity types, the limits. */
export type StartOptions = SuccessOf<ConsoleRoutes['startOptions']>;
/** A version of a template the form offers, with the answers it lets the sender give and its link's days. */
export type StartableTemplate = StartOptions['templates'][number];
type EntityType = StartOptions['entityTypes'][number]['value'];

/** What the form holds: each field as typed, and the key that makes its sends one start. */
export interface Draft extends TypedAnswers {
  /** The template's and the sender's ids; '' until chosen (the form shows the first). */
  templateId: string;
  senderEntityId: string;
  name: string;
  email: string;
  entityType: EntityType;
  /** The days the link works, as typed; null until typed (the template's own). */
  days: string | null;
  note: string;
  /**
   * Made when the form is first shown and kept across retries and reloads: however often it is sent, one
   * transaction is started.
   */
  idempotencyKey: string;
}

/** A form as it is first shown. */
function freshDraft(): Draft {
  return {
    templateId: '',
    senderEntityId: '',
    name: '',
    email: '',
    entityType: 'individual',
    answers: {},
    currencies: {},
    days: null,
    note: '',
    idempotencyKey: crypto.randomUUID(),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The entries of a stored record whose values are of the kinds `keep` accepts. */
function entriesOf<T>(value: unknown, keep: (each: unknown) => each is T): Record<string, T> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, T] => keep(entry[1])));
}

const isText = (value: unknown): value is string => typeof value === 'string';
const isAnswer = (value: unknown): value is string | boolean =>
  typeof value === 'string' || typeof value === 'boolean';

/**
 * The draft stored under `key`, each field taken when it is of its kind (a page of another release may have
 * stored another shape), the rest fresh; a fresh draft when there is none or storage is off.
 */
function readDraft(key: string): Draft {
  const draft = freshDraft();
  let stored: unknown;
  try {
    stored = JSON.parse(sessionStorage.getItem(key) ?? 'null');
  } catch {
    return draft;
  }
  if (!isRecord(stored)) return draft;
  for (const field of ['templateId', 'senderEntityId', 'name', 'email', 'note', 'idempotencyKey'] as const) {
    const value = stored[field];
    if (isText(value) && (field !== 'idempotencyKey' || value !== '')) draft[field] = value;
  }
  if (isText(stored.days)) draft.days = stored.days;
  // The server refuses a type it does not know: the form then says so beside the field.
  if (isText(stored.entityType)) draft.entityType = stored.entityType as EntityType;
  draft.answers = entriesOf(stored.answers, isAnswer);
  draft.currencies = entriesOf(stored.currencies, isText);
  return draft;
}

/**
 * The form's draft, restored from sessionStorage under `key` (one per organization and person: another person
 * signing in on the tab starts afresh) and stored at each change; `clear` forgets it, once it was sent.
 */
export function useDraft(key: string): {
  draft: Draft;
  /** Changes some fields: those given, or those a function of the draft before answers. */
  change: (changes: Partial<Draft> | ((before: Draft) => Partial<Draft>)) => void;
  clear: () => void;
} {
  const [draft, setDraft] = useState(() => readDraft(key));
  // As the page is drawn, not after: a reload right after a keystroke keeps it.
  useLayoutEffect(() => {
    try {
      sessionStorage.setItem(key, JSON.stringify(draft));
    } catch {
      // Storage off or full: the form works, a reload starts it afresh.
    }
  }, [key, draft]);
  const change = useCallback((changes: Partial<Draft> | ((before: Draft) => Partial<Draft>)) => {
    setDraft((before) => ({ ...before, ...(typeof changes === 'function' ? changes(before) : changes) }));
  }, []);
  const clear = useCallback(() => {
    try {
      sessionStorage.removeItem(key);
    } catch {
      // Nothing was stored.
    }
  }, [key]);
  return { draft, change, clear };
}

/** The form's own fields (the template's answers aside), in the order the form shows them. */
export const FIELDS = ['template', 'sender', 'name', 'email', 'entityType', 'days', 'note'] as const;
export type FormField = (typeof FIELDS)[number];

/** What is wrong with the form: with its own fields, and with the template's answers (by answer). */
export interface Problems {
  fields: Partial<Record<FormField, string>>;
  answers: Record<string, string>;
}

/** What the form sends: to preview the invitation, and (with its idempotency key) to start the transaction. */
export type StartBody = InputOf<ConsoleRoutes, 'POST /start/invitation'>['body'];

/** What the form shows of the draft: the template and the sender chosen (else the first), the link's days. */
export interface Chosen {
  template: StartableTemplate;
  senderId: string;
  days: string;
}

/** The template and sender the draft names, when the organization still has them, else the defaults. */
export function chosenOf(
  draft: Pick<Draft, 'templateId' | 'senderEntityId' | 'days'>,
  options: Pick<StartOptions, 'templates' | 'senders'>,
): Chosen | undefined {
  const { templates, senders } = options;
  const template =
    templates.find((each) => each.id === draft.templateId) ??
    templates.find((each) => each.latest) ??
    templates[0];
  const senderId = senders.some((each) => each.id === draft.senderEntityId)
    ? draft.senderEntityId
    : senders[0]?.id;
  if (template === undefined || senderId === undefined) return undefined;
  return { template, senderId, days: draft.days ?? String(template.linkValidDays) };
}

/**
 * The draft as the routes take it, or what is plainly wrong with it (the server checks fully): a blank name, an
 * address that is not one, days out of range, a line too long, an answer that does not read as its kind.
 */
export function readForm(
  draft: Draft,
  chosen: Chosen,
  limits: StartOptions['limits'],
): { body: StartBody } | { problems: Problems } {
  const { template } = chosen;
  const { answers, problems: answerProblems } = answersOf(template.prefill, draft);
  const fields: Partial<Record<FormField, string>> = {};
  if (draft.name.trim() === '') fields.name = "Enter the investor's name.";
  const email = emailProblem(draft.email, "Enter the investor's e-mail address.");
  if (email !== undefined) fields.email = email;
  const days = Number(chosen.days);
  if (!/^\d+$/.test(chosen.days.trim()) || days < 1 || days > limits.maxLinkValidDays) {
    fields.days = `Enter a number of days from 1 to ${String(limits.maxLinkValidDays)}.`;
  }
  const note = draft.note.trim();
  if (note.length > limits.maxNoteLength) {
    fields.note = `Write at most ${limits.maxNoteLength.toLocaleString(locale)} characters.`;
  }
  if (Object.keys(fields).length > 0 || Object.keys(answerProblems).length > 0) {
    return { problems: { fields, answers: answerProblems } };
  }
  return {
    body: {
      templateId: template.id,
      senderEntityId: chosen.senderId,
      investor: { name: draft.name.trim(), email: draft.email.trim(), entityType: draft.entityType },
      answers,
      linkValidDays: days,
      ...(note === '' ? {} : { note }),
    },
  };
}

/** The field of the form a server's refusal names (`details.field`, in the form's words). */
const FIELD_OF_REFUSAL: Record<string, FormField> = {
  templateId: 'template',
  senderEntityId: 'sender',
  'investor.name': 'name',
  'investor.email': 'email',
  'investor.entityType': 'entityType',
  linkValidDays: 'days',
  note: 'note',
};

/**
 * A server's refusal as what is wrong beside the field it names: one of the form's own, or one of the template's
 * answers (`answers.<item>.<field>`, its message under the answer's title, which the field's label already
 * says); undefined for a refusal about no one field, which the page shows on its own.
 */
export function problemsOfRefusal(error: ApiError, prefill: readonly PrefillAnswer[]): Problems | undefined {
  const named = error.field ?? '';
  const field = FIELD_OF_REFUSAL[named];
  if (field !== undefined) return { fields: { [field]: error.message }, answers: {} };
  const answer = prefill.find((each) => named === `answers.${each.answer}`);
  if (answer === undefined) return undefined;
  const said = error.message.startsWith(`${answer.title}: `)
    ? sentence(error.message.slice(answer.title.length + 2))
    : error.message;
  return { fields: {}, answers: { [answer.answer]: said } };
}

/** The id of the first field, in the form's order, that `problems` says something about. */
export function firstProblemId(problems: Problems, prefill: readonly PrefillAnswer[]): string | undefined {
  const ids = [
    ...FIELDS.slice(0, FIELDS.indexOf('days')).map((field) => [problems.fields[field], fieldId(field)]),
    ...prefill.map((answer) => [problems.answers[answer.answer], answerId(answer.answer)]),
    ...FIELDS.slice(FIELDS.indexOf('days')).map((field) => [problems.fields[field], fieldId(field)]),
  ];
  return ids.find(([problem]) => problem !== undefined)?.[1];
}

/** The id of a field of the form. */
export const fieldId = (field: FormField): string => `start-${field}`;
