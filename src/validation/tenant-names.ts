import { AppError, quote } from '../errors.ts';

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
  if (options.name.trim() === '') throw new AppError('BAD_USER_INPUT', 'name must not be blank');
  if (options.name.trim().length > MAX_NAME_LENGTH) {
    throw new AppError('BAD_USER_INPUT', `name may be at most ${MAX_NAME_LENGTH} characters`);
  }
  return options.name.trim();
}
