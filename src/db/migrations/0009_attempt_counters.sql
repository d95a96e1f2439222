-- Counters of attempts that protect credentials (failed sign-ins, mailed codes, code tries), shared by every
-- node and kept here rather than in Redis, so that a Redis outage never lifts them (see http/attempt-limits.ts).
--
-- A bucket is the SHA-256 of a budget's name and what it counts by (an e-mail address, a client address):
-- no address is kept as it is. A fixed window: the first attempt after resets_at starts a new one.

create table attempt_counters (
  bucket bytea primary key,
  count integer not null,
  resets_at timestamptz not null
);
create index attempt_counters_resets_at_idx on attempt_counters (resets_at);
