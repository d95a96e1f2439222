-- Consent to sign electronically (ESIGN Act 15 U.S.C. 7001(c), UETA; docs/esign-consent.md): each act of a
-- transaction's recipient about its Electronic Record and Signature Disclosure, as a row that never changes. The
-- latest act of a recipient decides: `consented` lets them sign; `withdrawn` and `paper_requested` stop their
-- later signatures until they consent again. The disclosure is kept as shown (its text and SHA-256), so that
-- what the recipient accepted can be read back whatever the template or Portico's default says later.

-- The organization's own disclosure (`portico org disclosure`), shown where a template has none; null: Portico's.
alter table organizations add column esign_disclosure text check (char_length(esign_disclosure) between 1 and 20000);

create table esign_consents (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  transaction_recipient_id uuid not null references transaction_recipients (id) on delete cascade,
  act text not null check (act in ('consented', 'withdrawn', 'paper_requested')),
  -- Where the disclosure came from: Portico's default text, the organization's, or the template's (`disclosure`).
  disclosure_source text not null check (disclosure_source in ('default', 'organization', 'template')),
  disclosure_text text not null,
  disclosure_sha256 text not null check (disclosure_sha256 ~ '^[0-9a-f]{64}$'),
  -- What the recipient wrote with a withdrawal or a request for paper (where to post it, why), if anything.
  message text check (char_length(message) <= 1000),
  -- As for a signature: the address the request came from (behind the trusted proxies only) and its browser.
  ip_address text,
  user_agent text,
  request_id text,
  created_at timestamptz not null default clock_timestamp(),
  -- The mail telling the organization of a withdrawal or a request for paper: due until it went (see
  -- src/transactions/esign/organization-notice.ts), then `notified_at`; a consent mails no one.
  notice_due_at timestamptz,
  notice_failures integer not null default 0,
  notified_at timestamptz
);
create index esign_consents_recipient_idx on esign_consents (transaction_recipient_id, created_at, sequence);
create index esign_consents_transaction_id_idx on esign_consents (transaction_id, created_at, sequence);
create index esign_consents_organization_id_idx on esign_consents (organization_id);
create index esign_consents_notice_due_idx on esign_consents (notice_due_at) where notice_due_at is not null;
