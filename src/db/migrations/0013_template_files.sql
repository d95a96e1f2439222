-- The fund's own PDFs that templates fill and sign (a document's `agreement.pdf`), stored once per organization
-- and content: the template's definition names each by its SHA-256, so a changed PDF is a changed template.
create table template_files (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  content bytea not null,
  byte_size integer not null check (byte_size > 0),
  original_filename text not null,
  created_at timestamptz not null default now(),
  sequence bigint generated always as identity,
  unique (organization_id, sha256)
);
