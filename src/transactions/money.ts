import { AppError } from '../errors.ts';

/**
 * Money in item data: an amount in the currency's minor unit (cents for USD, yen for JPY, fils for BHD) as an
 * integer, and the ISO 4217 code of its currency, e.g. `{"currency": "USD", "amount": 25000000}` for
 * $250,000.00. One representation everywhere: the stored item data, GraphQL `data`, the webhook, the review
 * page and the signed document (which format it with the currency's symbol, grouping and decimals).
 */
export interface Money {
  /** ISO 4217, upper case, e.g. `USD`. */
  currency: string;
  /** In the currency's minor unit: 25000000 is 250,000.00 USD. */
  amount: number;
}

/** The largest amount in minor units that JSON numbers keep exactly (2^53 - 1). */
const MAX_MINOR = Number.MAX_SAFE_INTEGER;

/** Whether `code` is an ISO 4217 currency Intl knows (the runtime's ICU data), e.g. `USD`. */
export function isCurrency(code: string): boolean {
  if (!/^[A-Z]{3}$/.test(code)) return false;
  return Intl.supportedValuesOf('currency').includes(code);
}

/**
 * How many digits the currency's minor unit has (ISO 4217's exponent, as ICU knows it): 2 for USD and EUR,
 * 0 for JPY, 3 for BHD.
 *
 * @example
 * minorDigits('JPY'); // 0
 */
export function minorDigits(currency: string): number {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  );
}

/**
 * Reads an amount as a person types it, in major units: digits with optional `,` grouping (or spaces) and a
 * `.` before at most the currency's decimals, e.g. "250,000", "250000.00", "1 000.5". A currency symbol or code
 * around it is allowed and ignored. Returns the amount in minor units. Throws BAD_USER_INPUT saying what is
 * wrong: not a number, too many decimals for the currency, negative, or too large.
 *
 * @example
 * parseMoney('250,000', 'USD'); // 25000000
 * parseMoney('1,000', 'JPY'); // 1000
 */
export function parseMoney(text: string, currency: string, field?: string): number {
  const details = field === undefined ? undefined : { field };
  const digits = minorDigits(currency);
  const bare = text
    .trim()
    .replace(new RegExp(`^${currency}\\s*|\\s*${currency}$`, 'i'), '')
    .replace(/^[^\d.,\s-]+|[^\d.,\s]+$/gu, '')
    .trim();
  if (bare.startsWith('-')) {
    throw new AppError('BAD_USER_INPUT', 'Enter an amount of zero or more.', details);
  }
  const match = /^(\d{1,3}(?:[, ]\d{3})+|\d+)(?:\.(\d*))?$/.exec(bare);
  if (!match) {
    throw new AppError(
      'BAD_USER_INPUT',
      `Enter an amount in ${currency} like 250,000 or 250000.${'0'.repeat(Math.max(digits, 2))}.`.replace(
        /\.$/,
        '',
      ),
      details,
    );
  }
  const whole = (match[1] ?? '').replace(/[, ]/g, '');
  const fraction = match[2] ?? '';
  if (fraction.length > digits) {
    throw new AppError(
      'BAD_USER_INPUT',
      digits === 0
        ? `${currency} amounts have no decimals.`
        : `${currency} amounts have at most ${String(digits)} decimals.`,
      details,
    );
  }
  const minor = BigInt(whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0');
  if (minor > BigInt(MAX_MINOR)) throw new AppError('BAD_USER_INPUT', 'The amount is too large.', details);
  return Number(minor);
}

/**
 * An amount in minor units as people read it, with the currency's symbol, grouping and decimals.
 *
 * @example
 * formatMoney({ currency: 'USD', amount: 25000000 }); // "$250,000.00"
 * formatMoney({ currency: 'EUR', amount: 150 }, 'de-DE'); // "1,50 €"
 */
export function formatMoney(money: Money, locale = 'en-US'): string {
  const digits = minorDigits(money.currency);
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency: money.currency });
  const minor = BigInt(money.amount);
  const scale = 10n ** BigInt(digits);
  // Through a decimal string, not a float division: 0.1 + 0.2 never shows.
  const whole = minor / scale;
  const fraction = (minor % scale).toString().padStart(digits, '0');
  const decimal = digits === 0 ? whole.toString() : `${whole.toString()}.${fraction}`;
  return format.format(decimal as Intl.StringNumericLiteral);
}
