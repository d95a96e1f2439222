-- Closings: a named group of transactions of one template version and sender ("Fund I, first close"), made from a
-- list of investors (a CSV or XLSX file, or pasted rows) that is checked row by row before anything is created.
-- Running it creates each ready row's transaction, once, from any node: a row is claimed with FOR UPDATE SKIP
-- LOCKED and marked created in the database transaction that creates it.
create table closings (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  template_id uuid not null references templates (id),
  sender_entity_id uuid not null references entities (id),
  link_valid_days integer check (link_valid_days between 1 and 365),
  invitation_note text check (char_length(invitation_note) <= 1000),
  -- The list's columns as its file named them, in its order.
  columns jsonb not null default '[]',
  -- Problems of the columns themselves (an unknown column, the e-mail column missing).
  column_problems jsonb not null default '[]',
  status text not null default 'draft' check (status in ('draft', 'running', 'finished', 'stopped')),
  stop_reason text,
  created_by uuid references users (id) on delete set null,
  -- Who ran it: the person each of its transactions is made by.
  started_by uuid references users (id) on delete set null,
  created_at timestamptz not null default clock_timestamp(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null default clock_timestamp()
);
create index closings_organization_id_idx on closings (organization_id, created_at desc, sequence desc);
create index closings_running_idx on closings (status) where status = 'running';

create table closing_rows (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  closing_id uuid not null references closings (id) on delete cascade,
  -- The row's number as the spreadsheet shows it (the header is row 1).
  row_number integer not null,
  -- The row's cells as the file had them (or as fixed on the page), by column.
  cells jsonb not null,
  investor_name text not null,
  investor_email text not null,
  entity_type text not null,
  answers jsonb not null default '{}',
  problems jsonb not null default '[]',
  status text not null check (status in ('ready', 'problem', 'dropped', 'created', 'failed')),
  transaction_id uuid unique references transactions (id),
  failure text,
  updated_at timestamptz not null default clock_timestamp(),
  unique (closing_id, row_number)
);
create index closing_rows_ready_idx on closing_rows (closing_id, row_number) where status = 'ready';

alter table transactions add column closing_id uuid references closings (id);
create index transactions_closing_id_idx on transactions (closing_id, state) where closing_id is not null;
