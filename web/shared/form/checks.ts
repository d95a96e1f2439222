// What the pages check before a round trip, to say a slip at once and beside its field. The server checks
// fully; these only catch what is plainly wrong.

/** The longest name of a person (MAX_NAME in src/accounts/users.ts). */
export const PERSON_NAME_MAX = 100;

/**
 * What is wrong with a typed e-mail address, or undefined: `blank` is said when nothing was typed.
 *
 * @example
 * emailProblem('ada@example') // 'Enter an e-mail address, like ada@example.com.'
 */
export function emailProblem(typed: string, blank = 'Enter your e-mail address.'): string | undefined {
  const address = typed.trim();
  if (address === '') return blank;
  return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(address)
    ? undefined
    : 'Enter an e-mail address, like ada@example.com.';
}

/** What is wrong with a person's name (which may be left empty), or undefined. */
export function personNameProblem(name: string): string | undefined {
  return name.length > PERSON_NAME_MAX
    ? `A name has at most ${String(PERSON_NAME_MAX)} characters.`
    : undefined;
}
