-- Whether an organization, or a customer instance, requires its people to sign in with a second factor (issue 42,
-- item 3): `nobody` (the default), `everyone`, or `roles` — then the roles of `second_factor_roles`.
alter table organizations add column second_factor_required text not null default 'nobody'
  check (second_factor_required in ('nobody', 'everyone', 'roles'));
alter table organizations add column second_factor_roles text[] not null default '{}';
alter table portfolio_instances add column second_factor_required text not null default 'nobody'
  check (second_factor_required in ('nobody', 'everyone', 'roles'));
alter table portfolio_instances add column second_factor_roles text[] not null default '{}';

-- An admin resetting a colleague's second factors, and one changing the policy, are changes of the team (its
-- activity names them). A policy change is done to no one person (`user_id` null); a reset done from the
-- `portico` command on the server names no admin: `actor_type` says it was the operator.
alter table team_changes alter column user_id drop not null;
alter table team_changes add column actor_type text not null default 'user'
  check (actor_type in ('user', 'operator'));
alter table team_changes drop constraint team_changes_action_check;
alter table team_changes add constraint team_changes_action_check check (
  action in ('invited', 'invitation_resent', 'role_changed', 'deactivated', 'reactivated', 'sessions_ended',
    'factors_reset', 'factor_policy_changed')
);
