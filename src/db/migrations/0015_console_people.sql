-- The people of an organization's console have one of four roles (a customer instance's dashboard keeps its
-- two), and a person can be deactivated rather than deleted: their name stays on what they did, in the
-- timeline and the team's activity, and they can no longer sign in.
alter table users drop constraint users_role_check;
alter table users add constraint users_role_check check (
  (instance_id is not null and role in ('admin', 'member'))
  or (organization_id is not null and role in ('admin', 'operator', 'reviewer', 'viewer'))
);
alter table users add column deactivated_at timestamptz;
alter table users add column deactivated_by uuid references users (id) on delete set null;
create index users_deactivated_by_idx on users (deactivated_by);
