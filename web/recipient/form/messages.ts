// What a form says about an answer that breaks its schema: what to do, in words, never a schema keyword.

import { formatMoney, minorDigits } from '../../../src/transactions/money.ts';
import type { FieldHints, MoneyRule } from '../types.ts';
import type { SchemaProblem } from './schema-check.ts';

/** What the message may use of the field: the template's hints, and whether it is answered by a file. */
export type FieldFacts = Pick<FieldHints, 'help' | 'placeholder' | 'widget'> & {
  upload: boolean;
  /** The field is an amount of money; its problems are those of its currency or amount. */
  money?: MoneyRule;
};

/** An amount in minor units as a bound reads: with the symbol of the one currency, else with its decimals. */
function bound(amount: number, rule: MoneyRule): string {
  const [first = 'USD', ...others] = rule.currencies;
  if (others.length === 0) return formatMoney({ currency: first, amount });
  const digits = minorDigits(first);
  return new Intl.NumberFormat('en-US', { minimumFractionDigits: digits }).format(amount / 10 ** digits);
}

/** What the recipient should do about a money field's currency or amount. */
function moneyMessage(problem: SchemaProblem, rule: MoneyRule): string {
  const [field] = problem.path.slice(1);
  const { limit } = problem.params as { limit?: unknown };
  if (field === 'currency') return 'Choose a currency.';
  if (problem.keyword === 'minimum' && typeof limit === 'number')
    return `Enter ${bound(limit, rule)} or more.`;
  if (problem.keyword === 'maximum' && typeof limit === 'number')
    return `Enter ${bound(limit, rule)} or less.`;
  if (problem.keyword === 'required') return 'Enter an amount.';
  const digits = minorDigits(rule.currencies[0] ?? 'USD');
  return digits === 0
    ? 'Enter the amount in whole units, like 250,000.'
    : `Enter the amount like 250,000 or 250000.${'0'.repeat(digits)}, with at most ${String(digits)} decimals.`;
}

const FORMAT_EXAMPLES: Record<string, string> = {
  email: 'Enter an e-mail address, like ada@example.com.',
  date: 'Enter a whole date: day, month and year.',
  'date-time': 'Enter a date and a time.',
  time: 'Enter a time, like 14:30.',
  uri: 'Enter a web address, like https://example.com.',
  url: 'Enter a web address, like https://example.com.',
  uuid: 'This is not a valid reference.',
};

/** Whether the field is answered by choosing (a list of options, a yes/no), not by typing. */
function chosen(schema: Record<string, unknown>, facts: FieldFacts): boolean {
  return (
    facts.widget === 'radio' ||
    facts.widget === 'select' ||
    facts.widget === 'checkboxes' ||
    facts.widget === 'country' ||
    Array.isArray(schema.enum) ||
    Array.isArray(schema.oneOf) ||
    Array.isArray(schema.anyOf) ||
    schema.type === 'array'
  );
}

/** An example (the template's placeholder) or else the field's hint, to end a message about a format. */
function explained(facts: FieldFacts, schema: Record<string, unknown>): string {
  if (facts.placeholder !== undefined) return ` For example: ${facts.placeholder.trim().replace(/\.$/, '')}.`;
  const help = facts.help ?? (typeof schema.description === 'string' ? schema.description : undefined);
  return help === undefined ? '' : ` ${help.trim().replace(/([^.!?])$/, '$1.')}`;
}

const count = (n: unknown, one: string, many: string) => `${String(n)} ${n === 1 ? one : many}`;

/** What the recipient should do about a problem of the field (its label is shown beside it). */
export function problemMessage(problem: SchemaProblem, facts: FieldFacts): string {
  if (facts.money !== undefined) return moneyMessage(problem, facts.money);
  const { schema, params } = problem;
  switch (problem.keyword) {
    case 'required':
      if (facts.upload) return 'Upload a file.';
      if (facts.widget === 'checkbox' || schema.type === 'boolean') {
        return schema.const === true ? 'Tick this box to go on.' : 'Answer this.';
      }
      if (schema.type === 'array') return 'Choose at least one.';
      if (chosen(schema, facts)) return 'Choose an answer.';
      if (schema.format === 'date') return 'Enter a date.';
      return 'Enter an answer.';
    case 'minLength':
      return params.limit === 1
        ? 'Enter an answer.'
        : `Use at least ${count(params.limit, 'character', 'characters')}.`;
    case 'maxLength':
      return `Use at most ${count(params.limit, 'character', 'characters')}.`;
    case 'pattern':
      return `Check how this is written.${explained(facts, schema)}`;
    case 'format':
      return (
        FORMAT_EXAMPLES[String(params.format)] ?? `Check how this is written.${explained(facts, schema)}`
      );
    case 'type':
      if (String(params.type).includes('integer')) return 'Enter a whole number, digits only.';
      if (String(params.type).includes('number')) return 'Enter a number, digits only.';
      return 'This answer is not of the kind expected: enter it again.';
    case 'minimum':
      return `Enter ${String(params.limit)} or more.`;
    case 'maximum':
      return `Enter ${String(params.limit)} or less.`;
    case 'exclusiveMinimum':
      return `Enter more than ${String(params.limit)}.`;
    case 'exclusiveMaximum':
      return `Enter less than ${String(params.limit)}.`;
    case 'multipleOf':
      return `Enter a multiple of ${String(params.multipleOf)}.`;
    case 'const':
      if (schema.const === true) return 'Tick this box to go on.';
      return 'Choose the answer the form asks for.';
    case 'enum':
    case 'oneOf':
    case 'anyOf':
      return chosen(schema, facts)
        ? 'Choose one of the options.'
        : `Check this answer.${explained(facts, schema)}`;
    case 'minItems':
      return params.limit === 1 ? 'Choose at least one.' : `Choose at least ${String(params.limit)}.`;
    case 'maxItems':
      return `Choose at most ${String(params.limit)}.`;
    case 'uniqueItems':
      return 'Each answer can be given once only.';
    case 'additionalProperties':
      return 'This form does not ask for this answer.';
    default:
      return `Check this answer.${explained(facts, schema)}`;
  }
}
