-- The processes that serve this database (`portico serve`) or deliver its webhooks (`portico worker`), each
-- renewing its row every 10 s (db/node-registry.ts). A row unseen for 30 s is a process that is gone, and
-- whoever reads the table deletes it. A node that keeps files in its own data dir reads the others at start:
-- files it stores there would be lost to them.
create table nodes (
  id uuid primary key default gen_random_uuid(),
  hostname text not null,
  pid integer not null,
  kind text not null check (kind in ('serve', 'worker')),
  -- 'local' (the data dir of `hostname`), 's3', or 'none' (a node that serves no files: Portfolio only);
  -- `files_location` names the directory or the bucket.
  file_storage text not null check (file_storage in ('local', 's3', 'none')),
  files_location text not null,
  started_at timestamptz not null default clock_timestamp(),
  last_seen_at timestamptz not null default clock_timestamp()
);
create index nodes_last_seen_at on nodes (last_seen_at);
