-- Four eyes: the events a template names in `workflow.secondPerson` are only asked for by a person of the
-- console; a second person approves (the event then runs) or declines. One request waits per transaction.
create table event_approvals (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  event_key text not null,
  -- What the requester said with the event (a void's reason), said again when it runs.
  message text,
  -- The workflow step the requester saw (the id of its latest transaction_events row): once the transaction
  -- has moved on, the request is stale.
  version text,
  requested_by uuid references users (id) on delete set null,
  request_id text,
  created_at timestamptz not null default clock_timestamp(),
  decided_at timestamptz,
  decided_by uuid references users (id) on delete set null,
  outcome text check (outcome in ('approved', 'declined', 'stale'))
);
create unique index event_approvals_waiting_idx on event_approvals (transaction_id) where decided_at is null;
create index event_approvals_transaction_id_idx on event_approvals (transaction_id, created_at, sequence);
create index event_approvals_organization_id_idx on event_approvals (organization_id);
create index event_approvals_requested_by_idx on event_approvals (requested_by);
create index event_approvals_decided_by_idx on event_approvals (decided_by);
