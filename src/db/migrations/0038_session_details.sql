-- What a person sees of their own sessions, to end the ones they do not know (issue 42, item 5).
--
-- `public_id` names a session to its person's pages (random, never the session's secret nor its hash); the
-- browser (User-Agent) and client address as at sign-in; `last_active_at` moved by requests at most once a minute.
alter table user_sessions add column public_id text;
alter table user_sessions add column user_agent text;
alter table user_sessions add column ip_address text;
alter table user_sessions add column last_active_at timestamptz not null default clock_timestamp();
create index user_sessions_public_id_idx on user_sessions (public_id);

-- The browsers each person has signed in from: the SHA-256 of a long-lived random cookie of the browser
-- (`portico_device`), so that a sign-in from a browser not seen before mails the person.
create table known_browsers (
  user_id uuid not null references users (id) on delete cascade,
  browser_hash bytea not null,
  first_seen_at timestamptz not null default clock_timestamp(),
  primary key (user_id, browser_hash)
);

-- An admin ending a colleague's sessions is one of the team's changes (its activity names it).
alter table team_changes drop constraint team_changes_action_check;
alter table team_changes add constraint team_changes_action_check check (
  action in ('invited', 'invitation_resent', 'role_changed', 'deactivated', 'reactivated', 'sessions_ended')
);
