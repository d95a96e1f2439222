/**
 * The one UUID form Portico accepts wherever a client sends an id or a token: 32 hexadecimal digits in the
 * 8-4-4-4-12 groups, either case (PostgreSQL's `uuid` type reads both, and prints lower case).
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID in the form PostgreSQL's `uuid` type reads.
 *
 * @example isUuid('7c9e6679-7425-40de-944b-e07fc1f90ae7') // true
 */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
