/**
 * Who must view a delivered key: the first listed address to do so ends the delivery (the default), or each of
 * them views it once. A file of its own so that the CLI can offer the choices without loading the domain.
 */
export const VIEWS_REQUIRED = ['first', 'all'] as const;
export type ViewsRequired = (typeof VIEWS_REQUIRED)[number];
