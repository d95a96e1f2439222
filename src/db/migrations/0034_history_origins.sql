-- Where each act of a transaction's history came from (issue 41, item 3; docs/evidence.md, "Who did what, from
-- where"): the client's address as the services see it (behind PORTICO_TRUST_PROXY, the one the proxy forwards),
-- its user agent, and how the person was identified ("the link mailed to jane@example.com", "signed in to the
-- console as olive@example.com"). One row per history entry (an event of transaction_events or an entry of
-- transaction_activity, by its id) made by a request. Kept beside the history rather than in it: PORTICO_RETENTION's
-- `addresses` removes them after its days, which the hash chain would otherwise report as edits.
create table transaction_history_origins (
  entry_id uuid primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  transaction_id uuid not null references transactions (id) on delete cascade,
  ip_address text,
  user_agent text,
  identified_by text not null,
  created_at timestamptz not null default clock_timestamp()
);
create index transaction_history_origins_transaction_id_idx on transaction_history_origins (transaction_id);
create index transaction_history_origins_organization_id_idx on transaction_history_origins (organization_id);
create index transaction_history_origins_created_at_idx on transaction_history_origins (created_at);
