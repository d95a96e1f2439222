import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkMoneyValues, moneyValueProblem } from '../../../src/transactions/templates/money-fields.ts';
import { readAnswers } from '../../../src/transactions/templates/answer-text.ts';
import { checkTemplate } from '../../../src/transactions/templates/validation.ts';
import { describeProblems } from '../../../src/validation/problems.ts';
import { refusal } from '../../support/refusal.ts';

const EXAMPLE = new URL('../../../templates/examples/subscription.yaml', import.meta.url);
let example: string;

beforeAll(async () => {
  example = await readFile(EXAMPLE, 'utf8');
});

/** The example template with its amount as a money field declared by `money`. */
function withMoneyField(money: string, property = 'amount: { title: Amount }'): string {
  const changed = example.replace(
    / {10}required: \[amount\]\n[\s\S]*? {12}minimum: 1000\n/,
    `          required: [amount]\n          properties:\n            ${property}\n        money:\n          amount: ${money}\n`,
  );
  expect(changed).not.toBe(example);
  return changed;
}

function problemsOf(source: string): string[] {
  const checked = checkTemplate(source);
  if (checked.ok) throw new Error('the template passed');
  return describeProblems('t.yaml', checked.problems)
    .split('\n')
    .map((line) => line.replace(/^t\.yaml:\d+: /, ''));
}

describe('money fields of templates', () => {
  it('makes the property of a money field the schema of {currency, amount}, in minor units within its bounds', () => {
    const checked = checkTemplate(
      withMoneyField('{ currencies: [USD, EUR], minimum: 100000, maximum: "5000000.00" }'),
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const item = checked.definition.processes[0]?.items.find(
      (each) => each.vulcanKey === 'subscription_amount',
    );
    expect((item?.schema as unknown as { properties: Record<string, unknown> }).properties.amount).toEqual({
      title: 'Amount',
      type: 'object',
      properties: {
        currency: { enum: ['USD', 'EUR'] },
        amount: { type: 'integer', minimum: 10_000_000, maximum: 500_000_000 },
      },
      required: ['currency', 'amount'],
      additionalProperties: false,
    });
  });

  it.each([
    [
      'both currency and currencies',
      '{ currency: USD, currencies: [EUR] }',
      'money.amount: give either `currency` (one) or `currencies` (a choice), not both',
    ],
    [
      'a code ISO 4217 does not have',
      '{ currencies: [USD, XYZ] }',
      'money.amount.currencies[1]: "XYZ" is not an ISO 4217 currency code',
    ],
    [
      'a bound with too many decimals',
      '{ currency: JPY, minimum: "100.5" }',
      'money.amount.minimum: JPY amounts have no decimals.',
    ],
    [
      'a maximum below the minimum',
      '{ currency: USD, minimum: 10, maximum: 5 }',
      'money.amount.maximum: the maximum is below the minimum',
    ],
    [
      'bounds over currencies with different decimals',
      '{ currencies: [USD, JPY], minimum: 1 }',
      'money.amount.currencies: a minimum or maximum needs currencies with the same number of decimals',
    ],
  ])('refuses %s, naming the place', (_case, money, problem) => {
    expect(problemsOf(withMoneyField(money))).toContain(`processes[0].items[3].${problem}`);
  });

  it('refuses a money field whose property has a schema of its own, or that the schema lacks', () => {
    expect(problemsOf(withMoneyField('{ currency: USD }', 'amount: { type: string }'))).toContain(
      'processes[0].items[3].money.amount: "amount" is a money field: give its property only a title and a description (the import writes its schema), not type',
    );
    expect(problemsOf(withMoneyField('{ currency: USD }', 'total: { title: Total }'))).toContain(
      'processes[0].items[3].money.amount: the schema has no property "amount"',
    );
  });

  it('refuses a value in another currency, with decimals, out of bounds or not an amount, saying how to send it', async () => {
    const field = { currencies: ['USD', 'EUR'], minimum: 100000, maximum: '5000000' };
    expect(moneyValueProblem({ currency: 'USD', amount: 25_000_000 }, field)).toBeUndefined();
    expect(moneyValueProblem({ currency: 'GBP', amount: 25_000_000 }, field)).toBe(
      'the currency must be USD or EUR, not "GBP"',
    );
    expect(moneyValueProblem({ currency: 'USD', amount: 250000.5 }, field)).toBe(
      'the amount is a whole number in the smallest unit of USD (no decimals): {"currency": "USD", "amount": 25000000} is $250,000.00',
    );
    expect(moneyValueProblem({ currency: 'EUR', amount: 100 }, field)).toBe(
      'the amount must be at least €100,000.00',
    );
    expect(moneyValueProblem({ currency: 'USD', amount: 600_000_000 }, field)).toBe(
      'the amount must be at most $5,000,000.00, not $6,000,000.00',
    );
    expect(moneyValueProblem('250,000', field)).toMatch(
      /^send an amount of money as \{"currency", "amount"\}/,
    );
    const refused = await refusal(
      Promise.resolve().then(() => {
        checkMoneyValues(
          { vulcanKey: 'subscription_amount', money: { amount: field } },
          { amount: { currency: 'GBP', amount: 1 } },
        );
      }),
    );
    expect(refused).toMatchObject({
      code: 'MONEY_INVALID',
      status: 400,
      details: { item: 'subscription_amount', field: 'amount' },
    });
    expect(refused.message).toBe(
      '"amount" of item "subscription_amount": the currency must be USD or EUR, not "GBP"',
    );
  });

  it('shows a money value in the signed document with its currency, grouping and decimals', async () => {
    const checked = checkTemplate(withMoneyField('{ currency: USD }'));
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const [process] = checked.definition.processes;
    if (!process) throw new Error('no process');
    const { sections } = await readAnswers(
      { query: () => Promise.resolve([]) },
      {
        organizationId: randomUUID(),
        process,
        items: [
          { vulcanKey: 'subscription_amount', data: { amount: { currency: 'USD', amount: 25_000_000 } } },
        ],
      },
    );
    expect(sections.find((section) => section.title === 'Subscription amount')?.fields).toEqual([
      { label: 'Amount', value: '$250,000.00' },
    ]);
  });
});
