/** Where the customer dashboard is served on the Portfolio service. */
export const DASHBOARD_PATH = '/dashboard';

/**
 * The dashboard page where an invited person sets their password. The token rides in the fragment, which
 * browsers never send to a server: it stays out of access logs, proxies and `Referer` headers.
 *
 * @example invitationLink('https://portfolio.example.com', token) // https://portfolio.example.com/dashboard/invitation#token=…
 */
export function invitationLink(portfolioUrl: string, token: string): string {
  return `${portfolioUrl}${DASHBOARD_PATH}/invitation#token=${token}`;
}

/** The dashboard page where a person sets a new password; the token rides in the fragment, as above. */
export function passwordResetLink(portfolioUrl: string, token: string): string {
  return `${portfolioUrl}${DASHBOARD_PATH}/reset-password#token=${token}`;
}
