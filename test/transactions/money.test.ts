import { describe, expect, it } from 'vitest';
import { formatMoney, isCurrency, minorDigits, parseMoney } from '../../src/transactions/money.ts';
import { refusal } from '../support/refusal.ts';

const refused = (work: () => unknown) => refusal(Promise.resolve().then(work));

describe('money', () => {
  it('reads amounts as people type them, with or without grouping, decimals or the currency', () => {
    expect(parseMoney('250,000', 'USD')).toBe(25_000_000);
    expect(parseMoney('250000.00', 'USD')).toBe(25_000_000);
    expect(parseMoney(' $250,000.5 ', 'USD')).toBe(25_000_050);
    expect(parseMoney('USD 1 000', 'USD')).toBe(100_000);
    expect(parseMoney('1,000', 'JPY')).toBe(1000);
    expect(parseMoney('1.234', 'BHD')).toBe(1234);
    expect(parseMoney('0', 'EUR')).toBe(0);
  });

  it('refuses too many decimals for the currency, negative amounts, words and misplaced grouping, saying which', async () => {
    expect((await refused(() => parseMoney('1.005', 'USD', 'amount'))).message).toBe(
      'USD amounts have at most 2 decimals.',
    );
    expect((await refused(() => parseMoney('100.5', 'JPY'))).message).toBe('JPY amounts have no decimals.');
    expect((await refused(() => parseMoney('-5', 'USD'))).message).toBe('Enter an amount of zero or more.');
    for (const text of ['', 'lots', '25,00', '1,2345', '1.2.3']) {
      expect(await refused(() => parseMoney(text, 'USD', 'amount'))).toMatchObject({
        code: 'BAD_USER_INPUT',
        details: { field: 'amount' },
      });
    }
    expect((await refused(() => parseMoney('99999999999999999', 'USD'))).message).toBe(
      'The amount is too large.',
    );
  });

  it("formats with the currency's symbol, grouping and decimals, exactly for the largest amounts", () => {
    expect(formatMoney({ currency: 'USD', amount: 25_000_000 })).toBe('$250,000.00');
    expect(formatMoney({ currency: 'JPY', amount: 1000 })).toBe('¥1,000');
    expect(formatMoney({ currency: 'EUR', amount: 150 }, 'de-DE')).toBe('1,50\u00a0€');
    expect(formatMoney({ currency: 'USD', amount: Number.MAX_SAFE_INTEGER })).toBe('$90,071,992,547,409.91');
  });

  it('knows ISO 4217 codes and their minor units', () => {
    expect([isCurrency('USD'), isCurrency('usd'), isCurrency('XYZ')]).toEqual([true, false, false]);
    expect([minorDigits('USD'), minorDigits('JPY'), minorDigits('BHD')]).toEqual([2, 0, 3]);
  });
});
