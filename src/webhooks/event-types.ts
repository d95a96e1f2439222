/**
 * The events an endpoint can ask for: the types of the outbox. A file of its own so that the CLI can offer them
 * as choices without loading the endpoint store.
 */
export const EVENT_TYPES = [
  'transaction.completed',
  'transaction.state_changed',
  'transaction.voided',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
