/**
 * The kinds of a transaction's timeline, and who acts in it. A file of its own so that the console's contract
 * can name them without loading the timeline's reads.
 */
export const TIMELINE_KINDS = ['workflow', 'recipient', 'mail', 'webhook', 'api', 'console'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** Who acted: a person of the console, an API key, the recipient, or Portico itself. */
export const ACTOR_TYPES = ['user', 'api_key', 'recipient', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
