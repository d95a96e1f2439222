-- The organization console's work queue (src/transactions/console/queue.ts): when a transaction entered its
-- state, when its primary recipient last did something, who of the organization looks after it, and the
-- indexes its tabs, filters, sorts and search read. Every index leads with organization_id, as every queue
-- query is scoped to one organization.

-- When the transaction entered its current state: set by recordTransition (transitions.ts) when the state
-- changes, and at creation by the default. Backfilled from the latest event that moved it into that state (the
-- creation event has no source state; acts and mail logged with the state unchanged do not count).
alter table transactions add column state_entered_at timestamptz;
update transactions t set state_entered_at = coalesce(
  (select e.created_at from transaction_events e
   where e.transaction_id = t.id and e.target_state = t.state and e.source_state is distinct from e.target_state
   order by e.created_at desc, e.sequence desc limit 1),
  t.created_at);
alter table transactions alter column state_entered_at set default clock_timestamp();
alter table transactions alter column state_entered_at set not null;

-- The last time the primary recipient acted through their link: saved an item (an upload saves one), signed a
-- document or submitted a revision (recipients/activity.ts). Null until they first did. Backfilled from what
-- the log and the rows tell: their events (submissions, consents), their signatures and their uploads.
alter table transactions add column recipient_active_at timestamptz;
update transactions t set recipient_active_at = acts.at
from (
  select t2.id, greatest(
    (select max(e.created_at) from transaction_events e
     where e.transaction_id = t2.id and e.actor_type = 'recipient'),
    (select max(s.signed_at) from transaction_signatures s
     join transaction_recipients r on r.id = s.transaction_recipient_id
     join templates tp on tp.id = t2.template_id
     where r.transaction_id = t2.id and s.state = 'signed' and r.vulcan_key in (
       select role ->> 'key' from jsonb_array_elements(tp.definition -> 'recipientRoles') role
       where (role ->> 'primary')::boolean)),
    (select max(f.created_at) from transaction_files f
     where f.transaction_id = t2.id and f.transaction_recipient_id is not null)
  ) as at
  from transactions t2
) acts
where acts.id = t.id and acts.at is not null;

-- Who of the organization's users looks after the transaction (console "assign"); unassigned when they go.
alter table transactions add column assignee_user_id uuid references users (id) on delete set null;
create index transactions_assignee_user_id_idx on transactions (assignee_user_id) where assignee_user_id is not null;

-- The sorts, each with the state tab in front (a tab reads its own range) and without (every state):
-- newest/oldest (created_at: the state-less one exists, transactions_organization_id_idx), recently updated,
-- longest in state. sequence breaks ties. The tabs' counts are an index-only scan of the state-led one.
create index transactions_queue_state_created_idx on transactions (organization_id, state, created_at, sequence);
create index transactions_queue_updated_idx on transactions (organization_id, updated_at, sequence);
create index transactions_queue_state_updated_idx on transactions (organization_id, state, updated_at, sequence);
create index transactions_queue_entered_idx on transactions (organization_id, state_entered_at, sequence);
create index transactions_queue_state_entered_idx
  on transactions (organization_id, state, state_entered_at, sequence);
-- The template and sender entity filters, with the state for their tabs' counts.
create index transactions_queue_template_idx on transactions (organization_id, template_id, state);
create index transactions_queue_sender_idx on transactions (organization_id, sender_entity_id, state);

-- The tabs' counts, kept as transactions are written: counting an organization's rows by state is an index-only
-- scan of all of them (200,000 rows took 40-100 ms, bench/RESULTS.md), summing these is a few hundred rows. One
-- row per organization, template, sender entity, state and stripe: a writer adds to the stripe of its backend
-- (pg_backend_pid() % 16), so concurrent writers of the same organization and state do not queue on one row's
-- lock until they commit; a stripe may go below zero, the sum of a group's stripes is its count. The queue sums
-- them when its filters are template, sender entity and state only, and counts rows otherwise.
create table transaction_state_counts (
  organization_id uuid not null references organizations (id) on delete cascade,
  template_id uuid not null,
  sender_entity_id uuid not null,
  state text not null,
  stripe smallint not null,
  count bigint not null,
  primary key (organization_id, template_id, sender_entity_id, state, stripe)
);
insert into transaction_state_counts (organization_id, template_id, sender_entity_id, state, stripe, count)
select organization_id, template_id, sender_entity_id, state, 0, count(*)
from transactions group by organization_id, template_id, sender_entity_id, state;

create function transaction_state_counts_track() returns trigger language plpgsql as $$
declare
  backend_stripe smallint := pg_backend_pid() % 16;
begin
  if tg_op = 'DELETE' then
    -- Only ever a cascade from the organization (or a test's cleanup): no row is added for it, as the organization
    -- may be going too.
    update transaction_state_counts c set count = c.count - 1
    where c.organization_id = old.organization_id and c.template_id = old.template_id
      and c.sender_entity_id = old.sender_entity_id and c.state = old.state
      and c.stripe = (
        select min(c2.stripe) from transaction_state_counts c2
        where c2.organization_id = old.organization_id and c2.template_id = old.template_id
          and c2.sender_entity_id = old.sender_entity_id and c2.state = old.state and c2.count > 0);
    return null;
  end if;
  if tg_op = 'UPDATE' then
    insert into transaction_state_counts as c values
      (old.organization_id, old.template_id, old.sender_entity_id, old.state, backend_stripe, -1)
    on conflict (organization_id, template_id, sender_entity_id, state, stripe) do update set count = c.count - 1;
  end if;
  insert into transaction_state_counts as c values
    (new.organization_id, new.template_id, new.sender_entity_id, new.state, backend_stripe, 1)
  on conflict (organization_id, template_id, sender_entity_id, state, stripe) do update set count = c.count + 1;
  return null;
end
$$;
create trigger transaction_state_counts_insert_delete after insert or delete on transactions
  for each row execute function transaction_state_counts_track();
create trigger transaction_state_counts_update after update of organization_id, template_id, sender_entity_id, state
  on transactions for each row
  when ((old.organization_id, old.template_id, old.sender_entity_id, old.state)
    is distinct from (new.organization_id, new.template_id, new.sender_entity_id, new.state))
  execute function transaction_state_counts_track();

-- Search by fragment (ILIKE '%…%') of the investor's name and e-mail and of the sender entity's name: trigram
-- GIN indexes of pg_trgm, which PostgreSQL's contrib and PGlite (pglite-database.ts loads it) both ship. It is
-- installed in the schema public, so that every schema of a database (the tests', the benches') shares one, and
-- its operator class is named with its schema. Where it cannot be installed (no contrib, or no right to create
-- in public), the migration goes on without these indexes: search then reads the organization's rows.
do $$
begin
  create extension if not exists pg_trgm with schema public;
exception when others then
  raise notice 'pg_trgm is not available (%): the console search reads without trigram indexes', sqlerrm;
end
$$;
do $$
declare
  ops text;
begin
  select quote_ident(n.nspname) || '.gin_trgm_ops' into ops
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm';
  if ops is not null then
    execute format('create index transactions_notice_name_trgm_idx on transactions using gin (notice_name %s)', ops);
    execute format('create index transactions_notice_email_trgm_idx on transactions using gin (notice_email %s)', ops);
    execute format('create index entities_name_trgm_idx on entities using gin (name %s)', ops);
  end if;
end
$$;
