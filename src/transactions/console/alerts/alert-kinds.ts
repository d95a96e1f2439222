/**
 * The mail alerts a person of the console may pick, and how the preferences page and the digest name them. A
 * file of its own, without imports, so that the contract can name the kinds without loading the digest.
 */
export const ALERT_KINDS = [
  'submitted',
  'changes_answered',
  'completed',
  'closing_finished',
  'webhook_failing',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** Each kind in words: the preferences page's checkbox (`label`) and the digest's heading of its group (`heading`). */
export const ALERT_WORDS: Record<AlertKind, { label: string; heading: string }> = {
  submitted: { label: 'An investor submitted a transaction', heading: 'Submitted' },
  changes_answered: {
    label: 'An investor answered a request for changes',
    heading: 'Changes answered',
  },
  completed: { label: 'A transaction was completed', heading: 'Completed' },
  closing_finished: { label: 'A closing finished creating its transactions', heading: 'Closings finished' },
  webhook_failing: { label: 'A webhook endpoint started failing', heading: 'Webhook endpoints failing' },
};

/** At most one digest per person in this time: a quarter of an hour. */
export const DIGEST_EVERY_MS = 15 * 60_000;
