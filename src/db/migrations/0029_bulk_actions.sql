-- Bulk actions in the console: one action (a reminder, a workflow event, a void with its reason, an assignment) on
-- many of an organization's transactions at once, run by a job kept in the database. Each selected transaction is
-- an item with what the preflight found (eligible, or blocked with the reason) and the state it was in then; an
-- eligible item is claimed with FOR UPDATE SKIP LOCKED and marked in the database transaction that acts on it, so
-- any number of nodes run jobs side by side and no transaction is acted on twice.
create table bulk_jobs (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  action text not null check (action in ('remind', 'event', 'assign')),
  event_key text check (char_length(event_key) <= 100),
  message text check (char_length(message) <= 2000),
  assignee_user_id uuid references users (id) on delete set null,
  -- What the page calls the action ("Remind", "Approve", "Assign to Morgan"), as it was when the job was made.
  title text not null,
  requested_by uuid references users (id) on delete set null,
  status text not null default 'running' check (status in ('running', 'finished')),
  created_at timestamptz not null default clock_timestamp(),
  finished_at timestamptz,
  updated_at timestamptz not null default clock_timestamp()
);
create index bulk_jobs_organization_id_idx on bulk_jobs (organization_id, created_at desc, sequence desc);
create index bulk_jobs_running_idx on bulk_jobs (status) where status = 'running';

create table bulk_job_items (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  job_id uuid not null references bulk_jobs (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  -- The item's place in the selection, as the page listed it.
  position integer not null,
  -- The transaction's state, and when it entered it, when the job was made: one that moved since is skipped.
  checked_state text not null,
  checked_entered_at timestamptz not null,
  status text not null check (status in ('pending', 'done', 'asked', 'failed', 'skipped', 'blocked')),
  reason text,
  updated_at timestamptz not null default clock_timestamp(),
  unique (job_id, transaction_id)
);
create index bulk_job_items_job_idx on bulk_job_items (job_id, position);
create index bulk_job_items_pending_idx on bulk_job_items (job_id, position) where status = 'pending';
