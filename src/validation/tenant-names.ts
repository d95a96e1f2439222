import { AppError, blank, quote, tooLong } from '../errors.ts';

/** A tenant's short name: 2–63 lower-case letters, digits or hyphens, starting with a letter or digit. */
const SHORT_NAME = /^[a-z0-9][a-z0-9-]{1,62}$/;
/** The longest display name of a tenant. */
const MAX_NAME_LENGTH = 200;

/**
 * Checks a tenant's short name (a Transactions organization's handle, a Portfolio customer instance's slug)
 * and its display name, the same way for both services.
 * @returns the display name, trimmed
 */
export function checkTenantNames(options: { label: string; short: string; name: string }): string {
  if (!SHORT_NAME.test(options.short)) {
    throw new AppError(
      'BAD_USER_INPUT',
      `${options.label} ${quote(options.short)} must be 2–63 lower-case letters, digits or hyphens, starting with a letter or digit`,
    );
  }
  if (options.name.trim() === '') throw blank('A name');
  if (options.name.trim().length > MAX_NAME_LENGTH) throw tooLong('A name', MAX_NAME_LENGTH);
  return options.name.trim();
}
