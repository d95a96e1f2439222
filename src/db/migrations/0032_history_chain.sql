-- A tamper-evident history (issue 41, item 4; docs/evidence.md, "The history's hash chain").
--
-- A transaction's history is two tables: its workflow events (transaction_events) and its activity
-- (transaction_activity). Together they form one chain per transaction: each entry stores its place in it
-- (chain_position, from 1), the hash of the entry before it (chain_previous; 32 zero bytes for the first) and its
-- own hash, chain_hash = SHA-256(chain_previous || UTF-8 of its canonical text). The transaction's last hash and
-- place are kept in transaction_history_heads. An entry edited or deleted in the database afterwards no longer
-- matches its hash or leaves a gap, which `portico verify --transaction` and the console's page report
-- (src/transactions/history/chain.ts). Nothing blocks an UPDATE or a DELETE: whoever can bypass a trigger can
-- drop one, and the point is that the change shows.
--
-- The chain is made here, by a trigger before each row is inserted, so that every writer (there are many, and
-- some insert many rows in one statement) and every node of an older release joins it alike.

-- The canonical text of a history entry: the JSON of its meaningful columns. jsonb's text is deterministic (keys
-- in a fixed order, one spelling per value), so the stored row gives back the exact text that was hashed; the time
-- is written in UTC with microseconds, whatever the session's time zone. `portico_history_canonical(row)` of
-- either table is what the trigger, the backfill below, the verifier and the evidence bundle use; the columns
-- both tables share are written by this one. A column added to either table later joins the hash only through a
-- new version of these functions.
create function portico_history_canonical_text(
  source text, entry_position bigint, id uuid, organization_id uuid, transaction_id uuid, actor_type text,
  actor_id text, request_id text, created_at timestamptz, own jsonb
) returns text language sql stable as $$
  select (
    jsonb_build_object(
      'table', source,
      'position', entry_position,
      'id', id,
      'organizationId', organization_id,
      'transactionId', transaction_id,
      'actorType', actor_type,
      'actorId', actor_id,
      'requestId', request_id,
      'createdAt', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
    ) || own
  )::text
$$;

-- Each transaction's last entry: its place and hash. Its row is the lock that puts concurrent writers of one
-- transaction's history in one order (they take it after the transaction's row, when they lock that at all).
create table transaction_history_heads (
  transaction_id uuid primary key references transactions (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  position bigint not null,
  head bytea not null
);
create index transaction_history_heads_organization_id_idx on transaction_history_heads (organization_id);

alter table transaction_events
  add column chain_position bigint,
  add column chain_previous bytea,
  add column chain_hash bytea;
alter table transaction_activity
  add column chain_position bigint,
  add column chain_previous bytea,
  add column chain_hash bytea;

-- A workflow event: its event, the states it moved between, its message and the paper form it names.
create function portico_history_canonical(entry transaction_events) returns text language sql stable as $$
  select portico_history_canonical_text('transaction_events', entry.chain_position, entry.id,
    entry.organization_id, entry.transaction_id, entry.actor_type, entry.actor_id, entry.request_id,
    entry.created_at, jsonb_build_object(
      'eventKey', entry.event_key,
      'sourceState', entry.source_state,
      'targetState', entry.target_state,
      'message', entry.message,
      'paperFileId', entry.paper_file_id))
$$;
-- An activity entry: its kind, its action and its details.
create function portico_history_canonical(entry transaction_activity) returns text language sql stable as $$
  select portico_history_canonical_text('transaction_activity', entry.chain_position, entry.id,
    entry.organization_id, entry.transaction_id, entry.actor_type, entry.actor_id, entry.request_id,
    entry.created_at, jsonb_build_object('kind', entry.kind, 'action', entry.action, 'details', entry.details))
$$;

-- The entries there are, chained per transaction in the order they were written: by time, an event before
-- activity of the same instant (an event's mail is queued after it), then by sequence. Their places first, then
-- their hashes, one after the other.
with placed as (
  select source, id, row_number() over (
    partition by transaction_id order by created_at, source_rank, sequence) as place
  from (
    select 'transaction_events' as source, 0 as source_rank, id, transaction_id, created_at, sequence
    from transaction_events
    union all
    select 'transaction_activity', 1, id, transaction_id, created_at, sequence from transaction_activity
  ) entries
), events as (
  update transaction_events e set chain_position = placed.place
  from placed where placed.source = 'transaction_events' and placed.id = e.id
)
update transaction_activity a set chain_position = placed.place
from placed where placed.source = 'transaction_activity' and placed.id = a.id;

do $$
declare
  genesis constant bytea := decode(repeat('00', 32), 'hex');
  entry record;
  current_transaction uuid;
  current_organization uuid;
  place bigint;
  previous bytea;
  hash bytea;
begin
  for entry in
    select 'transaction_events' as source, e.id, e.transaction_id, e.organization_id, e.chain_position,
      portico_history_canonical(e) as canonical
    from transaction_events e
    union all
    select 'transaction_activity', a.id, a.transaction_id, a.organization_id, a.chain_position,
      portico_history_canonical(a)
    from transaction_activity a
    order by transaction_id, chain_position
  loop
    if current_transaction is distinct from entry.transaction_id then
      if current_transaction is not null then
        insert into transaction_history_heads (transaction_id, organization_id, position, head)
        values (current_transaction, current_organization, place, previous);
      end if;
      current_transaction := entry.transaction_id;
      current_organization := entry.organization_id;
      previous := genesis;
    end if;
    place := entry.chain_position;
    hash := sha256(previous || convert_to(entry.canonical, 'UTF8'));
    if entry.source = 'transaction_events' then
      update transaction_events set chain_previous = previous, chain_hash = hash where id = entry.id;
    else
      update transaction_activity set chain_previous = previous, chain_hash = hash where id = entry.id;
    end if;
    previous := hash;
  end loop;
  if current_transaction is not null then
    insert into transaction_history_heads (transaction_id, organization_id, position, head)
    values (current_transaction, current_organization, place, previous);
  end if;
end
$$;

alter table transaction_events
  alter column chain_position set not null,
  alter column chain_previous set not null,
  alter column chain_hash set not null;
alter table transaction_activity
  alter column chain_position set not null,
  alter column chain_previous set not null,
  alter column chain_hash set not null;

-- Before each history row is inserted: takes the transaction's head (made at its first entry), so that writers
-- of one transaction wait for each other, and puts the row after it. The upsert answers the new place and, the
-- head not yet moved, the previous hash; the head then moves to the row's hash. A row that comes with its hash
-- (a backup restored, `portico migrate-to`) keeps its chain as it was: the copy brings the heads too.
create function portico_history_chain() returns trigger language plpgsql as $$
begin
  if new.chain_hash is not null then
    return new;
  end if;
  insert into transaction_history_heads as h (transaction_id, organization_id, position, head)
  values (new.transaction_id, new.organization_id, 1, decode(repeat('00', 32), 'hex'))
  on conflict (transaction_id) do update set position = h.position + 1
  returning h.position, h.head into new.chain_position, new.chain_previous;
  new.chain_hash := sha256(new.chain_previous || convert_to(portico_history_canonical(new), 'UTF8'));
  update transaction_history_heads set head = new.chain_hash where transaction_id = new.transaction_id;
  return new;
end
$$;
create trigger transaction_events_chain before insert on transaction_events
  for each row execute function portico_history_chain();
create trigger transaction_activity_chain before insert on transaction_activity
  for each row execute function portico_history_chain();
