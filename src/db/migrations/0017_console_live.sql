-- Live updates of the organization console: every statement that inserts or changes transactions notifies
-- `portico_console` once, when it commits, naming the organizations and transactions it touched, so that each
-- node's open consoles refresh what changed, whichever node or process made the change (the API, a recipient,
-- the CLI, a worker). One notification per statement, not per row: a bulk change stays one message. Past 50
-- organizations or 100 transactions a list is null, meaning "any" (a notification's payload is at most 8000 bytes).
create function portico_notify_console() returns trigger language plpgsql as $$
declare
  organization_ids uuid[];
  transaction_ids uuid[];
begin
  select array_agg(distinct organization_id) into organization_ids from changed_transactions;
  select array_agg(id) into transaction_ids from (select id from changed_transactions limit 101) touched;
  if organization_ids is null then
    return null;
  end if;
  perform pg_notify('portico_console', json_build_object(
    'organizations', case when cardinality(organization_ids) <= 50 then organization_ids end,
    'transactions', case when cardinality(transaction_ids) <= 100 then transaction_ids end
  )::text);
  return null;
end;
$$;

create trigger transactions_inserted_notify_console
  after insert on transactions referencing new table as changed_transactions
  for each statement execute function portico_notify_console();
create trigger transactions_updated_notify_console
  after update on transactions referencing new table as changed_transactions
  for each statement execute function portico_notify_console();
