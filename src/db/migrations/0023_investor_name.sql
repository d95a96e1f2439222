-- The investor of a transaction, kept on its row: the name of its primary recipient's entity (the recipient of the
-- template's primary role, the first one if there were several), e.g. "Redwood Family Trust" where the notice name
-- is the contact person ("Morgan Redwood"). The console's queue and a transaction's page name it, and the queue's
-- search reads it through a trigram index with the notice name and address (see below, and
-- src/transactions/console/queue/queue-query.ts): reaching the entities through the recipients cost 170-225 ms
-- over an organization's 200,000 transactions (bench/RESULTS.md, 2026-11-26).
--
-- Triggers keep it wherever it can change, whoever writes (the API, the demo, a restore, a bench): a recipient is
-- added (the primary one comes with the transaction, in createTransaction's statement), or an entity is renamed.
-- Recipients are never removed but with their transaction, and never move to another entity. A transaction
-- starts with the name of the organization's entity at its notice address, or else its notice name (the entity
-- that createTransaction makes is named so): what its primary recipient turns out to be, so that making one
-- costs no second write of its row; the recipient's trigger corrects it where it is not.
alter table transactions add column investor_name text;

-- Sets the investor's name of the transactions given to the name of their primary recipient's entity, where it
-- differs (an unchanged row is not written, nor notified to the console).
create function transactions_investor_name_refresh(transaction_ids uuid[]) returns void language sql as $$
  update transactions t set investor_name = investor.name
  from (
    select distinct on (r.transaction_id) r.transaction_id, e.name
    from transaction_recipients r
    join transactions rt on rt.id = r.transaction_id
    join templates tp on tp.id = rt.template_id
    join entities e on e.id = r.entity_id and e.organization_id = r.organization_id
    where r.transaction_id = any(transaction_ids)
      and tp.definition -> 'recipientRoles' @> jsonb_build_array(jsonb_build_object('key', r.vulcan_key, 'primary', true))
    order by r.transaction_id, r.created_at, r.sequence
  ) investor
  where t.id = investor.transaction_id and t.investor_name is distinct from investor.name
$$;

select transactions_investor_name_refresh(array(select id from transactions));

create function transactions_investor_name_start() returns trigger language plpgsql as $$
begin
  if new.investor_name is null then
    new.investor_name := coalesce(
      (select e.name from entities e
       where e.organization_id = new.organization_id and lower(e.email) = lower(new.notice_email)
       order by e.created_at, e.sequence limit 1),
      new.notice_name);
  end if;
  return new;
end
$$;
create trigger transactions_investor_name_start before insert on transactions
  for each row execute function transactions_investor_name_start();

create function transactions_investor_name_recipients_added() returns trigger language plpgsql as $$
begin
  perform transactions_investor_name_refresh(array(select distinct transaction_id from added_recipients));
  return null;
end
$$;
create trigger transactions_investor_name_recipients_added after insert on transaction_recipients
  referencing new table as added_recipients
  for each statement execute function transactions_investor_name_recipients_added();

create function transactions_investor_name_entity_renamed() returns trigger language plpgsql as $$
begin
  perform transactions_investor_name_refresh(array(
    select r.transaction_id from transaction_recipients r
    where r.entity_id = new.id and r.organization_id = new.organization_id));
  return null;
end
$$;
create trigger transactions_investor_name_entity_renamed after update of name on entities
  for each row when (old.name is distinct from new.name)
  execute function transactions_investor_name_entity_renamed();

-- Search by fragment, scoped by organization: one GIN index of the organization (btree_gin) and the trigrams
-- (pg_trgm) of the investor's name and the contact's name and address, so that a search reads only the
-- organization's matches. 0016's trigram indexes, which it replaces, found every organization's: over 1,000,000
-- transactions of 100 organizations, a search of the largest (200,000) read four rows of the others for each of
-- its own, one of an organization of 8,000 over a hundred (bench/RESULTS.md, 2026-11-28). btree_gin is
-- PostgreSQL's contrib, installed in the schema public as 0016 installs pg_trgm; where it cannot be (PGlite loads
-- only pg_trgm, see pglite-database.ts), the investor's name gets a trigram index of its own, like 0016's, and
-- where pg_trgm cannot be either, search reads the organization's rows.
do $$
begin
  create extension if not exists btree_gin with schema public;
exception when others then
  raise notice 'btree_gin is not available (%): the console search is not scoped by organization in its index', sqlerrm;
end
$$;
do $$
declare
  trigrams text;
  btree text;
begin
  select quote_ident(n.nspname) into trigrams
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm';
  select quote_ident(n.nspname) into btree
  from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'btree_gin';
  if trigrams is not null and btree is not null then
    execute format(
      'create index transactions_search_idx on transactions using gin (organization_id %1$s.uuid_ops, '
      || 'investor_name %2$s.gin_trgm_ops, notice_name %2$s.gin_trgm_ops, notice_email %2$s.gin_trgm_ops)',
      btree, trigrams);
    drop index if exists transactions_notice_name_trgm_idx;
    drop index if exists transactions_notice_email_trgm_idx;
  elsif trigrams is not null then
    execute format(
      'create index transactions_investor_name_trgm_idx on transactions using gin (investor_name %s.gin_trgm_ops)',
      trigrams);
  end if;
end
$$;
