-- Certificates of completion (issue 41, item 5; docs/evidence.md, "The certificate of completion").
--
-- When a transaction completes, a row here says its certificate is due; a background run (several nodes may run
-- it: a claim is a lease, `claimed_until`) makes the certificate PDF from the history as it stands then, seals it
-- like the signed documents, stores it as a file and records the chain's head it certifies (its place and hash),
-- so that an evidence bundle can show that the certified history is the start of the bundle's chain.
create table transaction_certificates (
  transaction_id uuid primary key references transactions (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  due_at timestamptz not null default clock_timestamp(),
  -- A node making it holds it until then; another node takes it over after.
  claimed_until timestamptz,
  -- The last failure, in words, while it is retried.
  last_error text,
  attempts integer not null default 0,
  -- Set once made, together.
  file_id uuid references files (id),
  sha256 text,
  chain_position bigint,
  chain_head text,
  made_at timestamptz,
  check ((file_id is null) = (made_at is null))
);
create index transaction_certificates_due_idx on transaction_certificates (due_at) where file_id is null;
create index transaction_certificates_organization_id_idx on transaction_certificates (organization_id);
create index transaction_certificates_file_id_idx on transaction_certificates (file_id);
