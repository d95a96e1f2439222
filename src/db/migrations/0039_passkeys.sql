-- Passkeys (WebAuthn), a person's way to sign in without a password, or as the second step after it (issue 42,
-- item 1).
--
-- Each passkey belongs to one user row, so to one tenant: signing in with it names the person and the tenant at
-- once. Kept: the credential's id as the authenticator gives it (base64url, unique across every person: the same
-- credential is never registered twice), its COSE public key, the last signature counter it reported (a counter
-- that goes backwards is a cloned authenticator, refused), the transports the browser named, the name the person
-- gave it, and when it was added and last used. The challenges live in the server-side session, never here.
create table passkeys (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  credential_id text not null unique,
  public_key bytea not null,
  sign_count bigint not null default 0,
  transports text[] not null default '{}',
  name text not null,
  created_at timestamptz not null default clock_timestamp(),
  last_used_at timestamptz
);
create index passkeys_user_id_idx on passkeys (user_id);
