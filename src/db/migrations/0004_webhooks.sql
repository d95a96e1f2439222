-- Webhooks: the endpoints an organization registers, one delivery per (event, endpoint) fanned out from the
-- outbox, and every attempt to deliver it. A delivery is claimed with a lease (claimed_until) in a short
-- transaction of its own, so a worker that dies mid-send loses nothing: the lease runs out and any worker
-- takes the delivery again (at-least-once).

create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: breaks ties of created_at (PGlite's clock counts milliseconds).
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  url text not null,
  description text,
  event_types text[] not null check (
    cardinality(event_types) > 0
    and event_types <@ array['transaction.completed', 'transaction.state_changed']
  ),
  -- The signing secret (whsec_…), encrypted under the deployment's own key: it must be read to sign.
  secret bytea not null,
  -- After a rotation, the previous secret signs too until it expires.
  previous_secret bytea,
  previous_secret_expires_at timestamptz,
  disabled_at timestamptz,
  disabled_reason text,
  -- Since when every attempt has failed; cleared by a success.
  failing_since timestamptz,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp()
);
create index webhook_endpoints_organization_id_idx on webhook_endpoints (organization_id, created_at, sequence);

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
  event_id uuid not null references outbox_events (id) on delete cascade,
  -- The webhook-id header: the same on every attempt.
  message_id text not null,
  event_type text not null,
  -- The exact body sent, so that every attempt sends (and signs) the same bytes.
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default clock_timestamp(),
  claimed_until timestamptz,
  created_at timestamptz not null default clock_timestamp(),
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_organization_id_idx on webhook_deliveries (organization_id);
create index webhook_deliveries_event_id_idx on webhook_deliveries (event_id);

create table webhook_attempts (
  id uuid primary key default gen_random_uuid(),
  sequence bigint generated always as identity,
  organization_id uuid not null references organizations (id) on delete cascade,
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempted_at timestamptz not null,
  duration_ms integer not null,
  status_code integer,
  -- The first 4 KB of the response body.
  response_body text,
  error text
);
create index webhook_attempts_delivery_id_idx on webhook_attempts (delivery_id, sequence);
create index webhook_attempts_organization_id_idx on webhook_attempts (organization_id);
