/** Where the organization console is served on the Transactions service. */
export const CONSOLE_PATH = '/console';

/** Where the console's JSON routes are. */
export const CONSOLE_API_PATH = `${CONSOLE_PATH}/api`;

/**
 * The console page where an invited person sets their password. The token rides in the fragment, which browsers
 * never send to a server: it stays out of access logs, proxies and `Referer` headers.
 *
 * @example consoleInvitationLink('https://transactions.example.com', token) // …/console/invitation#token=…
 */
export function consoleInvitationLink(transactionsUrl: string, token: string): string {
  return `${transactionsUrl}${CONSOLE_PATH}/invitation#token=${token}`;
}

/** The console page where a person sets a new password; the token rides in the fragment, as above. */
export function consolePasswordResetLink(transactionsUrl: string, token: string): string {
  return `${transactionsUrl}${CONSOLE_PATH}/reset-password#token=${token}`;
}
