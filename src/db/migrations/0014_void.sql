-- Voiding a transaction (the workflow's built-in `void` event, transactions/workflow.ts): the organization ends
-- it with a reason. The transaction keeps when and why, which its recipient link then shows instead of the
-- portal; a `transaction.voided` webhook reports it; the primary recipient is told by mail, queued on their
-- recipient_notices row in the database transaction of the void and sent after commit like the other notices.

alter table transactions add column voided_at timestamptz;
-- What the organization said with the void: a copy of the event's message, which never changes.
alter table transactions add column void_reason text;

-- The mail telling the recipient of the void (cleared once sent); the reason is read from the transaction.
alter table recipient_notices add column voided_due_at timestamptz;
create index recipient_notices_voided_due_idx on recipient_notices (voided_due_at)
  where voided_due_at is not null;

-- The new webhook event type, in the outbox and in what endpoints may ask for.
alter table outbox_events drop constraint outbox_events_type_check;
alter table outbox_events add constraint outbox_events_type_check
  check (type in ('transaction.state_changed', 'transaction.completed', 'transaction.voided'));
alter table webhook_endpoints drop constraint webhook_endpoints_event_types_check;
alter table webhook_endpoints add constraint webhook_endpoints_event_types_check check (
  cardinality(event_types) > 0
  and event_types <@ array['transaction.completed', 'transaction.state_changed', 'transaction.voided']
);
