-- The write side of transactions: the outbox the webhook worker delivers from, and idempotency keys.

-- Written in the same database transaction as the change it reports, so it is never lost and never sent for a
-- change that rolled back.
create table outbox_events (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  type text not null check (type in ('transaction.state_changed', 'transaction.completed')),
  transaction_id uuid not null references transactions (id) on delete cascade,
  payload jsonb not null,
  created_at timestamptz not null default clock_timestamp(),
  -- Set once the delivery worker has fanned the event out to the endpoints that want it.
  dispatched_at timestamptz
);
create index outbox_events_pending_idx on outbox_events (sequence) where dispatched_at is null;
create index outbox_events_organization_id_idx on outbox_events (organization_id);
create index outbox_events_transaction_id_idx on outbox_events (transaction_id, sequence);

-- A mutation sent with an Idempotency-Key: its input's hash and its result, for 24 hours.
create table idempotency_keys (
  organization_id uuid not null references organizations (id) on delete cascade,
  key text not null,
  request_hash bytea not null,
  response jsonb not null,
  created_at timestamptz not null default clock_timestamp(),
  primary key (organization_id, key)
);
create index idempotency_keys_created_at_idx on idempotency_keys (created_at);
