-- Mail alerts of the console's people (docs/console.md, "Alerts"): which alerts each person picked, their digest's
-- cursor, the digests that went, and the one-click stop links those carry. The digest job
-- (src/transactions/console/alerts/digest-job.ts) reads what happened from the tables that already record it
-- (revisions submitted, transactions completed, closings finished, webhook endpoints failing), by organization
-- and time: the partial indexes at the end keep those reads to the organization's recent rows.

create table alert_preferences (
  user_id uuid primary key references users (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  -- The alerts the person picked; none until they pick some (opt in).
  kinds text[] not null default '{}' check (
    kinds <@ array['submitted', 'changes_answered', 'completed', 'closing_finished', 'webhook_failing']
  ),
  -- The person's cursor: what happened up to this time has been looked at for their digests (mailed, or of no
  -- kind they picked). It moves in the database transaction that records the digest that went.
  through timestamptz not null default clock_timestamp(),
  -- When their last digest went: the next goes no sooner than a quarter of an hour later.
  last_sent_at timestamptz,
  -- A run's claim on the person (FOR UPDATE SKIP LOCKED, committed at once): until then, no other node makes
  -- their digest. A failed send leaves it as the time to try again.
  claimed_until timestamptz,
  updated_at timestamptz not null default clock_timestamp()
);
create index alert_preferences_organization_id_idx on alert_preferences (organization_id);

-- Each digest that went: the events after `since` up to `through` it listed, and the message the mail server took.
create table alert_digests (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  since timestamptz not null,
  through timestamptz not null,
  events integer not null,
  message_id text,
  sent_at timestamptz not null default clock_timestamp()
);
create index alert_digests_user_id_idx on alert_digests (user_id, sent_at);
create index alert_digests_organization_id_idx on alert_digests (organization_id);

-- The "Stop these alerts" links of the digests, kept as the SHA-256 of their token only: each stops the alerts of
-- one person of one organization, without signing in, until it expires.
create table alert_stop_tokens (
  token_hash bytea primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index alert_stop_tokens_user_id_idx on alert_stop_tokens (user_id);
create index alert_stop_tokens_organization_id_idx on alert_stop_tokens (organization_id);
create index alert_stop_tokens_expires_at_idx on alert_stop_tokens (expires_at);

create index transaction_process_revisions_committed_idx
  on transaction_process_revisions (organization_id, committed_at) where committed_at is not null;
create index transactions_completed_idx on transactions (organization_id, completed_at) where completed_at is not null;
create index closings_finished_idx on closings (organization_id, finished_at) where finished_at is not null;
create index webhook_endpoints_failing_idx
  on webhook_endpoints (organization_id, failing_since) where failing_since is not null;
