-- Single sign-on with OpenID Connect (issue 42, item 4): an organization (the console) or a customer instance
-- (the dashboard) connects its identity provider, and the people of its e-mail domains sign in through it.
--
-- One connection per tenant: the issuer, the client id, and the client secret sealed under the `sso_secrets`
-- instance secret (AES-256-GCM, src/keys/sealed-box.ts; null for a public client, which PKCE alone protects);
-- whether an unknown person of its domains gets an account (`allow_new_accounts`) and as which role; and whether
-- passwords are off for its people (`sso_only`; its admins keep theirs, the break-glass way in).
create table sso_connections (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid unique references organizations (id) on delete cascade,
  instance_id uuid unique references portfolio_instances (id) on delete cascade,
  issuer text not null,
  client_id text not null,
  client_secret_sealed bytea,
  allow_new_accounts boolean not null default false,
  default_role text not null,
  sso_only boolean not null default false,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  check (num_nonnulls(organization_id, instance_id) = 1)
);

-- The e-mail domains a connection covers. A domain is claimed by one tenant per kind (one organization, one
-- customer instance): the sign-in page finds the connection from the address typed, so it must name one.
create table sso_domains (
  tenant_kind text not null check (tenant_kind in ('organization', 'instance')),
  domain text not null,
  connection_id uuid not null references sso_connections (id) on delete cascade,
  primary key (tenant_kind, domain)
);
create index sso_domains_connection_id_idx on sso_domains (connection_id);

-- A sign-in sent to the identity provider and not back yet, for 10 minutes. Kept by the SHA-256 of its `state`
-- rather than in the browser's session: the session cookie is SameSite=Strict, and the provider's redirect back
-- is a cross-site navigation that does not carry it. `browser_hash` is the SHA-256 of a random value in a short
-- SameSite=Lax cookie set when it began, so that only the browser that began it finishes it. The PKCE verifier is
-- sealed like the client secret; the nonce is no secret (the provider sees it).
create table sso_pending_logins (
  state_hash bytea primary key,
  browser_hash bytea not null,
  connection_id uuid not null references sso_connections (id) on delete cascade,
  nonce text not null,
  code_verifier_sealed bytea not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default clock_timestamp()
);
create index sso_pending_logins_connection_id_idx on sso_pending_logins (connection_id);
create index sso_pending_logins_expires_at_idx on sso_pending_logins (expires_at);

-- Connecting, changing or removing single sign-on is one of the team's changes, and so is an account made for a
-- person the identity provider signed in (`sso_joined`, its actor the person themselves).
alter table team_changes drop constraint team_changes_action_check;
alter table team_changes add constraint team_changes_action_check check (
  action in (
    'invited', 'invitation_resent', 'role_changed', 'deactivated', 'reactivated', 'sessions_ended',
    'factors_reset', 'factor_policy_changed', 'sso_configured', 'sso_removed', 'sso_joined'
  )
);
