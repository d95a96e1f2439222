/** How the dashboard names itself under the brand on its pages without a header. */
export const PRODUCT = 'Portfolio dashboard';
