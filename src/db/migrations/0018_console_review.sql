-- The review loop and the timeline of the organization console.
--
-- People of the console act on transactions: their events are logged like an API key's or a recipient's, and
-- every logged change keeps the request that made it.
alter table transaction_events drop constraint transaction_events_actor_type_check;
alter table transaction_events add constraint transaction_events_actor_type_check
  check (actor_type in ('api_key', 'recipient', 'system', 'user'));
alter table transaction_events add column request_id text;

-- A reviewer's comment on one field of one item of a process's revision, shown to the recipient beside the
-- field while it is open; the reviewer resolves it (typically once a later revision answers it).
create table review_comments (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  transaction_process_id uuid not null references transaction_processes (id) on delete cascade,
  -- The revision the reviewer was reading when they wrote it.
  revision_id uuid not null references transaction_process_revisions (id) on delete cascade,
  vulcan_key text not null,
  -- A property the item's schema declares (declaredProperties).
  field text not null,
  body text not null check (length(body) between 1 and 2000),
  author_id uuid references users (id) on delete set null,
  created_at timestamptz not null default clock_timestamp(),
  resolved_at timestamptz,
  resolved_by uuid references users (id) on delete set null
);
create index review_comments_transaction_id_idx on review_comments (transaction_id, created_at, sequence);
create index review_comments_organization_id_idx on review_comments (organization_id);
create index review_comments_process_id_idx on review_comments (transaction_process_id);
create index review_comments_revision_id_idx on review_comments (revision_id);
create index review_comments_author_id_idx on review_comments (author_id);
create index review_comments_resolved_by_idx on review_comments (resolved_by);

-- What happened to a transaction besides its workflow events (transaction_events) and webhook attempts
-- (webhook_attempts): what its recipient did, its mail, the API calls and console actions that changed it.
-- Append-only; with those two, one timeline.
create table transaction_activity (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  kind text not null check (kind in ('recipient', 'mail', 'api', 'console')),
  -- What happened, e.g. opened, saved, uploaded, signed, submitted, queued, sent, failed, commented, assigned.
  action text not null,
  actor_type text not null check (actor_type in ('api_key', 'recipient', 'system', 'user')),
  actor_id text,
  request_id text,
  details jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default clock_timestamp()
);
create index transaction_activity_transaction_id_idx on transaction_activity (transaction_id, created_at, sequence);
-- The team's activity: what the organization's people did, newest first.
create index transaction_activity_organization_id_idx
  on transaction_activity (organization_id, created_at, sequence);
