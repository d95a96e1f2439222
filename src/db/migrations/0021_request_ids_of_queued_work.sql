-- The request that queued a message or a webhook event, so that the log lines of sending it say which request
-- caused it (with the transaction). Null for what no request queued (the demo, rows written before this).
alter table recipient_notices add column request_id text;
alter table outbox_events add column request_id text;
