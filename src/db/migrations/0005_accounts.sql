-- People who sign in to Portico's pages: users of exactly one tenant (a customer instance of the Portfolio
-- service, or an organization of the Transactions service), each with a role. The same e-mail address in two
-- tenants is two users with two passwords.
--
-- Secrets are stored only as hashes: passwords with argon2id (a PHC string), and the single-use tokens of
-- invitation and password-reset links with SHA-256.

create table users (
  id uuid primary key default gen_random_uuid(),
  instance_id uuid references portfolio_instances (id) on delete cascade,
  organization_id uuid references organizations (id) on delete cascade,
  -- Lower case, as typed otherwise.
  email text not null check (email = lower(email) and email ~ '^[^@\s]+@[^@\s]+$'),
  name text not null default '',
  role text not null check (role in ('admin', 'member')),
  -- Null until the person has set a password (from an invitation).
  password_hash text,
  created_at timestamptz not null default clock_timestamp(),
  sequence bigint generated always as identity,
  check ((instance_id is null) <> (organization_id is null))
);
create unique index users_instance_email_idx on users (instance_id, email) where instance_id is not null;
create unique index users_organization_email_idx on users (organization_id, email)
  where organization_id is not null;

-- The links mailed to a user: an invitation (to set a first password) or a password reset. Each works once,
-- until it expires; a newer link of the same purpose ends the older ones.
create table user_links (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  purpose text not null check (purpose in ('invitation', 'password_reset')),
  token_hash bytea not null unique,
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default clock_timestamp(),
  expires_at timestamptz not null,
  used_at timestamptz,
  sequence bigint generated always as identity
);
create index user_links_user_id_idx on user_links (user_id, purpose);
create index user_links_created_by_idx on user_links (created_by);
