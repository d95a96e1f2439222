// The rules of a new password, as the pages check them before a round trip (the server checks fully, in
// src/accounts/passwords.ts): a mailed link's page and the signed-in person's own change say them alike.

/** The lengths `checkNewPassword` allows (src/accounts/passwords.ts). */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/** What the field of a new password says under its label. */
export const NEW_PASSWORD_HINT = `${String(PASSWORD_MIN)} to ${String(PASSWORD_MAX)} characters, not your e-mail address. A passphrase of a few words works well.`;

/**
 * What is wrong with a new password and its repetition, by field: too short, too long, or not the same twice.
 *
 * @example
 * newPasswordProblems('short', 'short') // { password: 'Use at least 10 characters.', confirmation: undefined }
 */
export function newPasswordProblems(
  password: string,
  confirmation: string,
): { password: string | undefined; confirmation: string | undefined } {
  return {
    password:
      password.length < PASSWORD_MIN
        ? `Use at least ${String(PASSWORD_MIN)} characters.`
        : password.length > PASSWORD_MAX
          ? `Use at most ${String(PASSWORD_MAX)} characters.`
          : undefined,
    confirmation: confirmation !== password ? 'The two passwords are not the same.' : undefined,
  };
}
