-- The Transactions service: organizations and their keys, entities, templates, transactions and everything a
-- transaction holds. Every tenant-owned row carries organization_id so that every query can be scoped to the
-- caller's organization without a join. Times default to clock_timestamp() so rows written in one database
-- transaction still order by creation, and a sequence breaks the ties left by a coarse clock.

create table organizations (
  id uuid primary key default gen_random_uuid(),
  handle text not null unique check (handle ~ '^[a-z0-9][a-z0-9-]{1,62}$'),
  name text not null check (length(trim(name)) > 0),
  created_at timestamptz not null default clock_timestamp()
);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  environment text not null check (environment in ('staging', 'production')),
  name text,
  -- What may be shown of the key: its type prefix and the first characters of its secret part.
  display_prefix text not null,
  -- SHA-256 of the whole key; the key itself is never stored.
  secret_hash bytea not null unique,
  created_at timestamptz not null default clock_timestamp(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_organization_id_idx on api_keys (organization_id, created_at);

create table entities (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null,
  email text,
  type text not null check (
    type in ('individual', 'joint', 'trust', 'company', 'partnership', 'fund', 'retirement_account', 'other')
  ),
  settings jsonb not null default '{}',
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
create index entities_organization_id_idx on entities (organization_id, created_at, sequence);
create index entities_email_idx on entities (organization_id, lower(email));

create table templates (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  key text not null,
  version integer not null check (version > 0),
  name text not null,
  description text,
  -- The whole template as imported: processes, recipient roles and workflow.
  definition jsonb not null,
  created_at timestamptz not null default clock_timestamp(),
  unique (organization_id, key, version)
);
create index templates_organization_id_idx on templates (organization_id, created_at, sequence);

create table transactions (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  template_id uuid not null references templates (id),
  sender_entity_id uuid not null references entities (id),
  state text not null,
  input_data jsonb,
  notice_name text not null,
  notice_email text not null,
  transmit_token_hash bytea unique,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  completed_at timestamptz
);
create index transactions_organization_id_idx on transactions (organization_id, created_at, sequence);
create index transactions_template_id_idx on transactions (template_id);
create index transactions_sender_entity_id_idx on transactions (sender_entity_id);

create table transaction_recipients (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  entity_id uuid not null references entities (id),
  -- The recipient role in the template, e.g. 'investor' or 'countersigner'.
  vulcan_key text not null,
  created_at timestamptz not null default clock_timestamp(),
  unique (transaction_id, vulcan_key, entity_id)
);
create index transaction_recipients_transaction_id_idx on transaction_recipients (transaction_id, created_at, sequence);
create index transaction_recipients_entity_id_idx on transaction_recipients (entity_id);
create index transaction_recipients_organization_id_idx on transaction_recipients (organization_id);

create table transaction_processes (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  key text not null,
  created_at timestamptz not null default clock_timestamp(),
  completed_at timestamptz,
  unique (transaction_id, key)
);
create index transaction_processes_transaction_id_idx on transaction_processes (transaction_id, created_at, sequence);
create index transaction_processes_organization_id_idx on transaction_processes (organization_id);

create table transaction_process_revisions (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_process_id uuid not null references transaction_processes (id) on delete cascade,
  -- Denormalized so that all revisions of a transaction load in one indexed query.
  transaction_id uuid not null references transactions (id) on delete cascade,
  number integer not null check (number > 0),
  context jsonb,
  created_at timestamptz not null default clock_timestamp(),
  committed_at timestamptz,
  unique (transaction_process_id, number)
);
create index transaction_process_revisions_process_id_idx
  on transaction_process_revisions (transaction_process_id, created_at, sequence);
create index transaction_process_revisions_transaction_id_idx
  on transaction_process_revisions (transaction_id, created_at, sequence);
create index transaction_process_revisions_organization_id_idx on transaction_process_revisions (organization_id);

create table transaction_items (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_process_revision_id uuid not null references transaction_process_revisions (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  vulcan_key text not null,
  data jsonb,
  completion_percentage integer not null default 0 check (completion_percentage between 0 and 100),
  created_at timestamptz not null default clock_timestamp(),
  unique (transaction_process_revision_id, vulcan_key)
);
create index transaction_items_revision_id_idx on transaction_items (transaction_process_revision_id, created_at, sequence);
create index transaction_items_transaction_id_idx on transaction_items (transaction_id, created_at, sequence);
create index transaction_items_organization_id_idx on transaction_items (organization_id);

create table files (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  mime_type text not null,
  extension text not null,
  original_filename text not null,
  override_filename text,
  -- Where the bytes are in the file store; null until uploaded.
  storage_key text,
  byte_size bigint,
  created_at timestamptz not null default clock_timestamp(),
  uploaded_at timestamptz
);
create index files_organization_id_idx on files (organization_id);

create table transaction_files (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  file_id uuid not null references files (id),
  transaction_recipient_id uuid references transaction_recipients (id),
  -- The item field the file answers, e.g. 'tax_form.w9'.
  vulcan_key text not null,
  created_at timestamptz not null default clock_timestamp()
);
create index transaction_files_transaction_id_idx on transaction_files (transaction_id, created_at, sequence);
create index transaction_files_file_id_idx on transaction_files (file_id);
create index transaction_files_recipient_id_idx on transaction_files (transaction_recipient_id);
create index transaction_files_organization_id_idx on transaction_files (organization_id);

create table transaction_signature_containers (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  transaction_process_id uuid not null references transaction_processes (id) on delete cascade,
  document_key text not null,
  state text not null default 'pending' check (state in ('pending', 'completed', 'voided')),
  created_at timestamptz not null default clock_timestamp(),
  completed_at timestamptz
);
create index transaction_signature_containers_transaction_id_idx
  on transaction_signature_containers (transaction_id, created_at, sequence);
create index transaction_signature_containers_process_id_idx
  on transaction_signature_containers (transaction_process_id, created_at, sequence);
create index transaction_signature_containers_organization_id_idx
  on transaction_signature_containers (organization_id);

create table transaction_signatures (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_signature_container_id uuid not null
    references transaction_signature_containers (id) on delete cascade,
  transaction_recipient_id uuid not null references transaction_recipients (id),
  state text not null default 'pending' check (state in ('pending', 'signed', 'declined')),
  signed_name text,
  signed_at timestamptz,
  ip_address text,
  user_agent text,
  created_at timestamptz not null default clock_timestamp()
);
create index transaction_signatures_container_id_idx
  on transaction_signatures (transaction_signature_container_id, created_at, sequence);
create index transaction_signatures_recipient_id_idx on transaction_signatures (transaction_recipient_id);
create index transaction_signatures_organization_id_idx on transaction_signatures (organization_id);

create table transaction_signature_files (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  transaction_signature_container_id uuid not null
    references transaction_signature_containers (id) on delete cascade,
  file_id uuid not null references files (id),
  created_at timestamptz not null default clock_timestamp()
);
create index transaction_signature_files_transaction_id_idx
  on transaction_signature_files (transaction_id, created_at, sequence);
create index transaction_signature_files_container_id_idx
  on transaction_signature_files (transaction_signature_container_id);
create index transaction_signature_files_file_id_idx on transaction_signature_files (file_id);
create index transaction_signature_files_organization_id_idx on transaction_signature_files (organization_id);

-- Append-only: every workflow transition of a transaction.
create table transaction_events (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  event_key text not null,
  source_state text,
  target_state text not null,
  actor_type text not null check (actor_type in ('api_key', 'recipient', 'system')),
  actor_id text,
  created_at timestamptz not null default clock_timestamp()
);
create index transaction_events_transaction_id_idx on transaction_events (transaction_id, created_at, sequence);
create index transaction_events_organization_id_idx on transaction_events (organization_id);

-- Secrets this deployment generates for itself and every node shares (e.g. the key that signs file links).
create table instance_secrets (
  name text primary key,
  value bytea not null,
  created_at timestamptz not null default clock_timestamp()
);
