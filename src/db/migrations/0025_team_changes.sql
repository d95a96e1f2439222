-- The changes an organization's admins make to its team, as they make them: invitations and invitations sent
-- again, role changes, deactivations and reactivations. The team's activity reads them here; a deactivation
-- read off `users` alone would vanish from it once the person is reactivated.
create table team_changes (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  -- The person changed, and the admin who changed them.
  user_id uuid not null references users (id) on delete cascade,
  actor_id uuid references users (id) on delete set null,
  action text not null check (
    action in ('invited', 'invitation_resent', 'role_changed', 'deactivated', 'reactivated')
  ),
  -- The role invited as ({role}), or the role before and after ({from, to}).
  details jsonb not null default '{}'::jsonb,
  request_id text,
  created_at timestamptz not null default clock_timestamp()
);
create index team_changes_organization_id_idx on team_changes (organization_id, created_at, sequence);
create index team_changes_user_id_idx on team_changes (user_id);
create index team_changes_actor_id_idx on team_changes (actor_id);

-- What the team's activity showed before, read then off the invitation links and the deactivated people.
insert into team_changes (organization_id, user_id, actor_id, action, details, created_at)
select u.organization_id, l.user_id, l.created_by, 'invited', jsonb_build_object('role', u.role), l.created_at
from user_links l join users u on u.id = l.user_id
where u.organization_id is not null and l.purpose = 'invitation' and l.created_by is not null
order by l.created_at, l.sequence;
insert into team_changes (organization_id, user_id, actor_id, action, created_at)
select u.organization_id, u.id, u.deactivated_by, 'deactivated', u.deactivated_at
from users u
where u.organization_id is not null and u.deactivated_by is not null
order by u.deactivated_at, u.sequence;
