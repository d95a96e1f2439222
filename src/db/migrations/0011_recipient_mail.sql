-- Recipient mail beyond the invitation and reminders: a request for changes and the signed copy are mailed at
-- once, queued on the transaction's recipient_notices row in the database transaction of their cause and sent
-- after commit like the invitation (transactions/recipient-notices.ts). Each mail that went is logged as a
-- SYSTEM event of the transaction (`mail.<kind>` in transaction_events).

-- A request for changes to mail (set by the event that sent a revision back; cleared once sent), with what the
-- sponsor said: a copy of the event's message, which never changes.
alter table recipient_notices add column changes_due_at timestamptz;
alter table recipient_notices add column changes_message text;
-- The mail with the link to the signed copy, queued when the transaction completes; the sealed token is kept
-- until it went.
alter table recipient_notices add column signed_copy_due_at timestamptz;
-- The due invitation follows a reset of the link, so it says the old link stopped working.
alter table recipient_notices add column link_replaced boolean not null default false;

create index recipient_notices_changes_due_idx on recipient_notices (changes_due_at)
  where changes_due_at is not null;
create index recipient_notices_signed_copy_due_idx on recipient_notices (signed_copy_due_at)
  where signed_copy_due_at is not null;
