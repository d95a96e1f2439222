-- Key delivery (Transactions spec, part 5): a key issued for an organization and an environment reaches only
-- the named e-mail addresses, through a link that expires within an hour.
--
-- The server cannot read an issued key: it keeps the key's SHA-256 (in api_keys) and the key encrypted
-- (AES-256-GCM) under a random secret that exists only in the mailed link's fragment, which browsers never
-- send. The link's id and the mailed codes are kept as SHA-256 hashes too.

create table key_deliveries (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  api_key_id uuid not null references api_keys (id) on delete cascade,
  -- SHA-256 of the link's id (its path); the id itself is only in the mailed link.
  link_hash bytea not null unique,
  -- SHA-256 of the fragment's secret: tells a tampered or cut link from a whole one, and reveals nothing.
  secret_check bytea not null,
  -- The key, encrypted under the fragment's secret (ciphertext then the GCM tag), and the nonce; null once it
  -- may not be shown again (seen as the delivery requires, expired, or revoked).
  ciphertext bytea,
  iv bytea,
  -- 'first': the first listed address to view the key ends the delivery; 'all': each listed address views it.
  views_required text not null check (views_required in ('first', 'all')),
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  sequence bigint generated always as identity
);
create index key_deliveries_organization_idx on key_deliveries (organization_id, created_at);
create index key_deliveries_api_key_idx on key_deliveries (api_key_id);
create index key_deliveries_pending_idx on key_deliveries (expires_at) where ciphertext is not null;

-- The addresses a delivery is for, and each one's view: when, from which client address and browser.
create table key_delivery_recipients (
  delivery_id uuid not null references key_deliveries (id) on delete cascade,
  email text not null,
  position integer not null,
  viewed_at timestamptz,
  viewed_ip text,
  viewed_user_agent text,
  primary key (delivery_id, email)
);

-- One-time codes mailed to a listed address to prove it is theirs: single use, 10 minutes, 5 attempts.
create table key_delivery_codes (
  id uuid primary key default gen_random_uuid(),
  delivery_id uuid not null,
  email text not null,
  code_hash bytea not null,
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null,
  attempts integer not null default 0,
  used_at timestamptz,
  foreign key (delivery_id, email) references key_delivery_recipients (delivery_id, email) on delete cascade
);
create index key_delivery_codes_recipient_idx on key_delivery_codes (delivery_id, email, created_at);
