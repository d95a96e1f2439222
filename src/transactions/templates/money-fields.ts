import { AppError, listed, moneyInvalid, quote } from '../../errors.ts';
import { formatMoney, isCurrency, minorDigits, parseMoney, type Money } from '../money.ts';

/**
 * A template's money fields (an item's `money`): fields answered with an amount of money, in one currency the
 * template fixes or one of several the recipient picks, with an optional minimum and maximum in major units
 * ("100000" is 100,000.00). At import the field's schema property becomes the JSON Schema of a {@link Money}
 * value, so the stored data, GraphQL `data` and the webhook carry `{"currency": "USD", "amount": 25000000}`.
 */
export interface MoneyFieldDefinition {
  /** The one currency, ISO 4217 (`USD`). */
  currency?: string | undefined;
  /** The currencies the recipient picks from. */
  currencies?: string[] | undefined;
  /** The smallest amount taken, in major units: 100000 or "100000.00". */
  minimum?: number | string | undefined;
  /** The largest amount taken, in major units. */
  maximum?: number | string | undefined;
}

/** The currencies a money field takes: its `currency`, or its `currencies`. */
export function currenciesOf(field: MoneyFieldDefinition): string[] {
  return field.currencies ?? (field.currency === undefined ? [] : [field.currency]);
}

/** A bound in minor units, for the field's currencies (which share their number of decimals when bounded). */
function boundOf(bound: number | string | undefined, currency: string): number | undefined {
  return bound === undefined ? undefined : parseMoney(String(bound), currency);
}

/** What the recipient portal needs of a money field: its currencies, and its bounds in minor units. */
export interface MoneyRule {
  currencies: string[];
  minimum?: number;
  maximum?: number;
}

/** The money fields of an item as the portal shows them (see {@link MoneyRule}). */
export function moneyRulesOf(item: {
  money?: Record<string, MoneyFieldDefinition> | undefined;
}): Record<string, MoneyRule> {
  return Object.fromEntries(
    Object.entries(item.money ?? {}).map(([field, definition]) => {
      const currencies = currenciesOf(definition);
      const [first = 'USD'] = currencies;
      const minimum = boundOf(definition.minimum, first);
      const maximum = boundOf(definition.maximum, first);
      return [
        field,
        {
          currencies,
          ...(minimum === undefined ? {} : { minimum }),
          ...(maximum === undefined ? {} : { maximum }),
        },
      ];
    }),
  );
}

/**
 * What is wrong with a money field of a template, as messages about `money.<field>`: none of `currency` and
 * `currencies` or both, a code ISO 4217 does not have, bounds that are not amounts of the currency or in the
 * wrong order, bounds over currencies with different decimals.
 */
export function moneyFieldProblems(
  field: MoneyFieldDefinition,
): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  if ((field.currency === undefined) === (field.currencies === undefined)) {
    problems.push({ path: [], message: 'give either `currency` (one) or `currencies` (a choice), not both' });
    return problems;
  }
  const currencies = currenciesOf(field);
  currencies.forEach((code, index) => {
    if (!isCurrency(code)) {
      problems.push({
        path: field.currencies === undefined ? ['currency'] : ['currencies', index],
        message: `${quote(code)} is not an ISO 4217 currency code`,
      });
    }
  });
  const [first] = currencies;
  if (problems.length > 0 || first === undefined) return problems;
  const bounded = field.minimum !== undefined || field.maximum !== undefined;
  if (bounded && new Set(currencies.map(minorDigits)).size > 1) {
    problems.push({
      path: ['currencies'],
      message: 'a minimum or maximum needs currencies with the same number of decimals',
    });
    return problems;
  }
  const bounds: Partial<Record<'minimum' | 'maximum', number>> = {};
  for (const name of ['minimum', 'maximum'] as const) {
    try {
      const bound = boundOf(field[name], first);
      if (bound !== undefined) bounds[name] = bound;
    } catch (error) {
      problems.push({ path: [name], message: error instanceof AppError ? error.message : String(error) });
    }
  }
  if (bounds.minimum !== undefined && bounds.maximum !== undefined && bounds.minimum > bounds.maximum) {
    problems.push({ path: ['maximum'], message: 'the maximum is below the minimum' });
  }
  return problems;
}

/**
 * The JSON Schema a money field's property stands for once imported: `{currency, amount}`, the amount a whole
 * number of minor units within the bounds. Keeps the property's title and description.
 */
export function moneySchema(
  property: Record<string, unknown>,
  field: MoneyFieldDefinition,
): Record<string, unknown> {
  const currencies = currenciesOf(field);
  const [first = 'USD'] = currencies;
  const minimum = boundOf(field.minimum, first) ?? 0;
  const maximum = boundOf(field.maximum, first);
  return {
    ...(property.title === undefined ? {} : { title: property.title }),
    ...(property.description === undefined ? {} : { description: property.description }),
    type: 'object',
    properties: {
      currency: currencies.length === 1 ? { const: first } : { enum: currencies },
      amount: { type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }) },
    },
    required: ['currency', 'amount'],
    additionalProperties: false,
  };
}

/** "USD, EUR or GBP". */
function choiceOf(currencies: string[]): string {
  return listed(currencies, 'or');
}

/**
 * What is wrong with a money value in item data, as a sentence for the field, or undefined when it fits: not a
 * `{currency, amount}` object, a currency the field does not take, an amount that is not a whole number of
 * minor units (too many decimals), or out of the field's bounds.
 *
 * @example
 * moneyValueProblem({ currency: 'EUR', amount: 100 }, { currency: 'USD' }); // 'the currency must be USD, not "EUR"'
 * moneyValueProblem({ currency: 'USD', amount: 250000 }, { currency: 'USD' }); // undefined
 */
export function moneyValueProblem(value: unknown, field: MoneyFieldDefinition): string | undefined {
  const currencies = currenciesOf(field);
  const example = (currency: string) =>
    `{"currency": "${currency}", "amount": ${String(25 * 10 ** (minorDigits(currency) + 4))}} is ${formatMoney({ currency, amount: 25 * 10 ** (minorDigits(currency) + 4) })}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `send an amount of money as {"currency", "amount"}, the amount in the currency's smallest unit: ${example(currencies[0] ?? 'USD')}`;
  }
  const { currency, amount } = value as { currency?: unknown; amount?: unknown };
  if (typeof currency !== 'string' || !currencies.includes(currency)) {
    return `the currency must be ${choiceOf(currencies)}${typeof currency === 'string' ? `, not ${quote(currency)}` : ''}`;
  }
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) {
    return `the amount is a whole number in the smallest unit of ${currency} (no decimals): ${example(currency)}`;
  }
  const money: Money = { currency, amount };
  const minimum = boundOf(field.minimum, currency) ?? 0;
  const maximum = boundOf(field.maximum, currency);
  if (amount < minimum) return `the amount must be at least ${formatMoney({ currency, amount: minimum })}`;
  if (maximum !== undefined && amount > maximum) {
    return `the amount must be at most ${formatMoney({ currency, amount: maximum })}, not ${formatMoney(money)}`;
  }
  return undefined;
}

/**
 * Refuses item data whose money fields do not fit (MONEY_INVALID, naming the item and field), before the item's
 * schema would say the same less clearly. Fields left out are the schema's to judge (a partial save).
 */
export function checkMoneyValues(
  item: { vulcanKey: string; money?: Record<string, MoneyFieldDefinition> | undefined },
  data: unknown,
): void {
  const values = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  for (const [name, field] of Object.entries(item.money ?? {})) {
    if (values[name] === undefined) continue;
    const problem = moneyValueProblem(values[name], field);
    if (problem !== undefined) {
      throw moneyInvalid(name, item.vulcanKey, problem);
    }
  }
}
