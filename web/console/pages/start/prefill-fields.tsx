// The answers a template lets the sender fill in when starting a transaction (its `prefill`), as the "New
// transaction" form asks them: each by its title under its item's, in the kind of field its schema calls for,
// typed as people write them and read as the server reads them (money through src/transactions/money.ts).

import { Checkbox, Flex, Text, TextField } from '@radix-ui/themes';
import { formatMoney, parseMoney } from '../../../../src/transactions/money.ts';
import type { PrefillAnswer } from '../../../../src/transactions/console/contract.ts';
import { Field } from '../../../shared/form/field.tsx';
import { locale } from '../../../shared/format.ts';
import { describedBy, HintAndError, SelectField } from './sending-fields.tsx';

/** What the form keeps of the prefilled answers: each as typed (a box's tick for a yes-or-no), and money's currency. */
export interface TypedAnswers {
  /** By answer (`<item>.<field>`): the text typed, a choice's value as JSON, or whether a box is ticked. */
  answers: Record<string, string | boolean>;
  /** By money answer: the currency chosen. */
  currencies: Record<string, string>;
}

/** The id of an answer's field: its key's dots and other characters a selector would need escaped made dashes. */
export function answerId(answer: string): string {
  return `start-answer-${answer.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/** What typed money reads as in `currency`, or undefined when it does not read as an amount (yet). */
function amountOf(text: string, currency: string): number | undefined {
  if (text.trim() === '') return undefined;
  try {
    return parseMoney(text, currency);
  } catch {
    return undefined;
  }
}

/** The currency a money answer is in: the one chosen, if the template offers it, else the template's first. */
function currencyOf(answer: PrefillAnswer, typed: TypedAnswers): string {
  const offered = answer.money?.currencies ?? [];
  const chosen = typed.currencies[answer.answer];
  return chosen !== undefined && offered.includes(chosen) ? chosen : (offered[0] ?? 'USD');
}

/** Its text typed, or '' (a box's tick is not text). */
const textOf = (typed: TypedAnswers, answer: string): string => {
  const value = typed.answers[answer];
  return typeof value === 'string' ? value : '';
};

/** A sentence from a rule's words: its first letter a capital, a full stop at its end. */
export const sentence = (text: string): string =>
  `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

/**
 * The answers to send (`<item>.<field>` → value, each blank one left out: the investor gives it) and what is
 * wrong with those that do not read as their kind, by answer: the same reading as the server's where it has
 * one (money), plain checks otherwise. The server checks each fully.
 */
export function answersOf(
  prefill: readonly PrefillAnswer[],
  typed: TypedAnswers,
): { answers: Record<string, unknown>; problems: Record<string, string> } {
  const answers: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const answer of prefill) {
    const key = answer.answer;
    if (answer.kind === 'boolean') {
      if (typed.answers[key] === true) answers[key] = true;
      continue;
    }
    const text = textOf(typed, key).trim();
    if (text === '') continue;
    switch (answer.kind) {
      case 'money': {
        const currency = currencyOf(answer, typed);
        try {
          answers[key] = { currency, amount: parseMoney(text, currency) };
        } catch (error) {
          problems[key] = error instanceof Error ? error.message : `Enter an amount in ${currency}.`;
        }
        break;
      }
      case 'number':
      case 'integer': {
        const number = Number(text.replace(/,/g, ''));
        if (!Number.isFinite(number)) problems[key] = 'Enter a number, like 12 or 12.5.';
        else if (answer.kind === 'integer' && !Number.isInteger(number))
          problems[key] = 'Enter a whole number, like 12.';
        else answers[key] = number;
        break;
      }
      case 'choice': {
        const choice = answer.choices?.find((each) => JSON.stringify(each.value) === text);
        if (choice === undefined) problems[key] = 'Choose one of the list.';
        else answers[key] = choice.value;
        break;
      }
      case 'date':
        if (/^\d{4}-\d{2}-\d{2}$/.test(text)) answers[key] = text;
        else problems[key] = 'Choose a date.';
        break;
      case 'text':
        if (answer.maxLength !== undefined && text.length > answer.maxLength)
          problems[key] = `Write at most ${answer.maxLength.toLocaleString(locale)} characters.`;
        else answers[key] = text;
        break;
    }
  }
  return { answers, problems };
}

/** One prefilled answer's field, in the kind its schema calls for. */
function AnswerField({
  answer,
  typed,
  error,
  disabled,
  onAnswer,
  onCurrency,
}: {
  answer: PrefillAnswer;
  typed: TypedAnswers;
  error: string | undefined;
  disabled: boolean;
  onAnswer: (answer: string, value: string | boolean) => void;
  onCurrency: (answer: string, currency: string) => void;
}) {
  const id = answerId(answer.answer);
  const text = textOf(typed, answer.answer);
  const type = (value: string) => {
    onAnswer(answer.answer, value);
  };
  switch (answer.kind) {
    case 'boolean':
      return (
        <Flex direction="column" gap="1">
          <Text as="label" size="2">
            <Flex gap="2" align="start">
              <Checkbox
                id={id}
                checked={typed.answers[answer.answer] === true}
                disabled={disabled}
                aria-invalid={error === undefined ? undefined : true}
                aria-describedby={describedBy(id, { hint: true, error })}
                onCheckedChange={(checked) => {
                  onAnswer(answer.answer, checked === true);
                }}
              />
              {answer.title}
            </Flex>
          </Text>
          <HintAndError id={id} hint="Left unticked, the investor answers it." error={error} />
        </Flex>
      );
    case 'choice':
      return (
        <SelectField
          id={id}
          label={answer.title}
          error={error}
          value={text}
          disabled={disabled}
          onChange={(event) => {
            type(event.target.value);
          }}
        >
          <option value="">Left to the investor</option>
          {(answer.choices ?? []).map((choice) => (
            <option key={JSON.stringify(choice.value)} value={JSON.stringify(choice.value)}>
              {choice.title}
            </option>
          ))}
        </SelectField>
      );
    case 'money':
      return (
        <MoneyField
          id={id}
          answer={answer}
          typed={typed}
          error={error}
          disabled={disabled}
          onAnswer={onAnswer}
          onCurrency={onCurrency}
        />
      );
    default:
      return (
        <Field
          id={id}
          label={answer.title}
          error={error}
          value={text}
          disabled={disabled}
          autoComplete="off"
          {...(answer.kind === 'date'
            ? { type: 'date' }
            : answer.kind === 'text'
              ? { maxLength: answer.maxLength }
              : { inputMode: answer.kind === 'integer' ? 'numeric' : 'decimal' })}
          onChange={(event) => {
            type(event.target.value);
          }}
        />
      );
  }
}

/**
 * An amount of money: typed as people write amounts ("250,000"), in the currency chosen when the template offers
 * several, and what it reads as beside it, so that a misplaced digit shows before the investor is invited.
 */
function MoneyField({
  id,
  answer,
  typed,
  error,
  disabled,
  onAnswer,
  onCurrency,
}: {
  id: string;
  answer: PrefillAnswer;
  typed: TypedAnswers;
  error: string | undefined;
  disabled: boolean;
  onAnswer: (answer: string, value: string) => void;
  onCurrency: (answer: string, currency: string) => void;
}) {
  const currencies = answer.money?.currencies ?? [];
  const currency = currencyOf(answer, typed);
  const text = textOf(typed, answer.answer);
  const amount = amountOf(text, currency);
  return (
    <Flex direction="column" gap="1">
      <Text as="label" htmlFor={id} size="2" weight="medium">
        {answer.title}
      </Text>
      <Flex gap="2" align="center">
        {currencies.length > 1 ? (
          <select
            className="native-select start-select start-currency"
            aria-label={`Currency of ${answer.title}`}
            value={currency}
            disabled={disabled}
            onChange={(event) => {
              onCurrency(answer.answer, event.target.value);
            }}
          >
            {currencies.map((code) => (
              <option key={code} value={code}>
                {code}
              </option>
            ))}
          </select>
        ) : (
          <Text size="3" aria-hidden>
            {currency}
          </Text>
        )}
        <TextField.Root
          id={id}
          size="3"
          className="start-amount"
          inputMode="decimal"
          autoComplete="off"
          value={text}
          disabled={disabled}
          aria-invalid={error === undefined ? undefined : true}
          aria-describedby={describedBy(id, { hint: true, error })}
          color={error === undefined ? undefined : 'red'}
          onChange={(event) => {
            onAnswer(answer.answer, event.target.value);
          }}
        />
      </Flex>
      <Text id={`${id}-hint`} size="2" color="gray" aria-live="polite">
        {amount === undefined
          ? currencies.length > 1
            ? `In the currency chosen beside it.`
            : `In ${currency}.`
          : `Reads as ${formatMoney({ currency, amount }, locale)}`}
      </Text>
      <HintAndError id={id} error={error} />
    </Flex>
  );
}

/**
 * The template's prefilled answers, grouped under their item's title, each labelled with its own: the investor
 * sees them filled in and may change them; one left blank is theirs to give.
 */
export function PrefillFields({
  prefill,
  typed,
  problems,
  disabled,
  onAnswer,
  onCurrency,
}: {
  prefill: readonly PrefillAnswer[];
  typed: TypedAnswers;
  /** What is wrong with each answer, by answer. */
  problems: Readonly<Record<string, string>>;
  disabled: boolean;
  onAnswer: (answer: string, value: string | boolean) => void;
  onCurrency: (answer: string, currency: string) => void;
}) {
  const groups = new Map<string, PrefillAnswer[]>();
  for (const answer of prefill)
    groups.set(answer.itemTitle, [...(groups.get(answer.itemTitle) ?? []), answer]);
  return (
    <Flex direction="column" gap="4">
      {[...groups].map(([itemTitle, answers]) => (
        <fieldset key={itemTitle} className="start-group">
          <Text size="2" weight="bold" mb="2" asChild>
            <legend>{itemTitle}</legend>
          </Text>
          <Flex direction="column" gap="3">
            {answers.map((answer) => (
              <AnswerField
                key={answer.answer}
                answer={answer}
                typed={typed}
                error={problems[answer.answer]}
                disabled={disabled}
                onAnswer={onAnswer}
                onCurrency={onCurrency}
              />
            ))}
          </Flex>
        </fieldset>
      ))}
    </Flex>
  );
}
