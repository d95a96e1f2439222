-- Archived templates: an admin archives a template by its key (every version of it) from the console. An archived
-- template starts no new transaction (createTransaction refuses it, TEMPLATE_ARCHIVED) and a running closing of it
-- stops; transactions already made go on. Unarchiving deletes the row. Who archived it is kept for the page.
create table template_archives (
  organization_id uuid not null references organizations (id) on delete cascade,
  key text not null,
  archived_by uuid references users (id) on delete set null,
  archived_at timestamptz not null default clock_timestamp(),
  primary key (organization_id, key)
);
