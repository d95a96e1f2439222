-- What a person sees of their own sessions, to end the ones they do not know (issue 42, item 5).
--
-- `public_id` names a session to its person's pages (random, never the session's secret nor its hash); the
-- browser (User-Agent) and client address as at sign-in; `last_active_at` moved by requests at most once a minute.
alter table user_sessions add column public_id text;
alter table user_sessions add column user_agent text;
alter table user_sessions add column ip_address text;
alter table user_sessions add column last_active_at timestamptz not null default clock_timestamp();
create index user_sessions_public_id_idx on user_sessions (public_id);
