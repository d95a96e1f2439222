/**
 * The messages Portico's webhooks send (docs/webhooks.md, "Messages"): `{id, type, timestamp, data}`, `data`
 * depending on `type`. New fields may be added to `data`; these are the ones every message of a type carries.
 */

/** The event types Portico sends, as they appear in a message's `type`. */
export const WEBHOOK_EVENT_TYPES = [
  'transaction.completed',
  'transaction.state_changed',
  'transaction.voided',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What every message says: which transaction of which organization. */
interface TransactionFacts {
  /** The transaction. */
  transactionId: string;
  /** Your organization. */
  organizationId: string;
}

/** A message's envelope. */
interface WebhookMessage<Type extends WebhookEventType, Data> {
  /** The `webhook-id`, `msg_` and 32 hex digits: the same on every attempt and resend; deduplicate on it. */
  id: string;
  type: Type;
  /** When the event happened: RFC 3339, UTC, milliseconds. */
  timestamp: string;
  data: Data;
}

/** A transaction completed: every process it has is complete. Sent once per transaction. */
export type TransactionCompletedEvent = WebhookMessage<
  'transaction.completed',
  TransactionFacts & {
    /** The workflow state it was in when it completed. */
    state: string;
    /** When it completed: the transaction's `completedAt`. */
    completedAt: string;
  }
>;

/** A transaction moved to a workflow state, its initial one included (`eventKey: 'create'`). */
export type TransactionStateChangedEvent = WebhookMessage<
  'transaction.state_changed',
  TransactionFacts & {
    /** The workflow event that caused the change; `create` when the transaction was created. */
    eventKey: string;
    /** The state it left; null for `create`. */
    previousState: string | null;
    /** The state it entered. */
    state: string;
  }
>;

/** The organization voided a transaction. */
export type TransactionVoidedEvent = WebhookMessage<
  'transaction.voided',
  TransactionFacts & {
    /** The state it left. */
    previousState: string;
    /** The state it entered: `voided`, or the target of the template's own `void` event. */
    state: string;
    /** What the organization said. */
    reason: string;
    /** Who voided it, as `Transaction.events` names actors: `API_KEY`, `USER`, … */
    actorType: string;
    /** When: the transaction's `voidedAt`. */
    voidedAt: string;
  }
>;

/** A message Portico sends: narrow it on `type`. */
export type WebhookEvent = TransactionCompletedEvent | TransactionStateChangedEvent | TransactionVoidedEvent;
