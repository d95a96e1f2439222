-- Signed-in sessions of Portico's pages, and who made each Portfolio API key.
--
-- A session is known by the SHA-256 of its id: the id itself lives only in the person's cookie, so a copy of
-- this table signs no one in. A session without a user holds only its CSRF secret (a sign-in form).

create table user_sessions (
  id_hash bytea primary key,
  user_id uuid references users (id) on delete cascade,
  -- What @fastify/session keeps: the cookie's settings, the CSRF secret, the user and when they signed in.
  data jsonb not null,
  created_at timestamptz not null default clock_timestamp(),
  -- The idle expiry, moved on by each request; the absolute one is data.signedInAt plus its limit.
  expires_at timestamptz not null
);
create index user_sessions_user_id_idx on user_sessions (user_id);
create index user_sessions_expires_at_idx on user_sessions (expires_at);

alter table portfolio_api_keys add column created_by uuid references users (id) on delete set null;
create index portfolio_api_keys_created_by_idx on portfolio_api_keys (created_by);
