-- Authenticator apps and recovery codes, the second factor of a signed-in person (issue 42, item 2).
--
-- One app per person: its TOTP secret sealed under the `authenticator_secrets` instance secret (AES-256-GCM,
-- src/keys/sealed-box.ts), never stored readable; `confirmed_at` null while it is being added (the person has not
-- yet typed a code from it), and `last_step`, the last RFC 6238 time step accepted, so that a code works once.
create table authenticator_apps (
  user_id uuid primary key references users (id) on delete cascade,
  secret_sealed bytea not null,
  confirmed_at timestamptz,
  last_step bigint not null default 0,
  created_at timestamptz not null default clock_timestamp()
);

-- Ten per person, made with the app and again on request (the old ones deleted): the SHA-256 of each code, which
-- holds 60 random bits, and when it was used (a code works once).
create table recovery_codes (
  user_id uuid not null references users (id) on delete cascade,
  code_hash bytea not null,
  used_at timestamptz,
  primary key (user_id, code_hash)
);
