-- The recipient portal: links that expire and say when they were replaced, invitation and reminder mail, and a
-- message with a workflow event (e.g. what the sponsor wants changed).

-- A recipient link works until this time (set when its token is made: at creation and at each reset).
alter table transactions add column transmit_token_expires_at timestamptz;
update transactions set transmit_token_expires_at = clock_timestamp() + interval '90 days'
  where transmit_token_hash is not null;

-- Tokens replaced by resetTransmitToken: an old link then says it was replaced rather than that it never was.
create table retired_transmit_tokens (
  token_hash bytea primary key,
  transaction_id uuid not null references transactions (id) on delete cascade,
  retired_at timestamptz not null default clock_timestamp()
);
create index retired_transmit_tokens_transaction_id_idx on retired_transmit_tokens (transaction_id);

-- The primary recipient's mail: one row per transaction. The current token is kept sealed (AES-256-GCM under
-- the instance secret 'recipient_links') so that reminders can repeat the link; it is dropped once nothing more
-- will be sent.
create table recipient_notices (
  transaction_id uuid primary key references transactions (id) on delete cascade,
  organization_id uuid not null references organizations (id) on delete cascade,
  token_sealed bytea,
  -- When an invitation is to go out (set at creation and at each reset; cleared once sent).
  invitation_due_at timestamptz,
  invited_at timestamptz,
  -- When the next reminder is due; null when none is.
  next_reminder_at timestamptz,
  reminders_sent integer not null default 0,
  -- Failed sends of the due message in a row, and the last failure (no secret: the mailer's error text).
  failures integer not null default 0,
  last_failure text,
  updated_at timestamptz not null default clock_timestamp()
);
create index recipient_notices_organization_id_idx on recipient_notices (organization_id);
create index recipient_notices_invitation_due_idx on recipient_notices (invitation_due_at)
  where invitation_due_at is not null;
create index recipient_notices_reminder_due_idx on recipient_notices (next_reminder_at)
  where next_reminder_at is not null;

-- What the actor said with an event, e.g. the changes a sponsor asks for with request_changes.
alter table transaction_events add column message text;
