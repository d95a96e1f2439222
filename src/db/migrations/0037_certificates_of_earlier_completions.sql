-- Certificates of completion for the transactions that completed before 0035_completion_certificates: each is
-- queued as due, so that the nodes make it in the background as they make a new one (once, from the history as it
-- stands, its hash chain checked first: 0032 chained the earlier entries). Their acts before
-- 0034_history_origins have no address or user agent, which the certificate shows as "-".
insert into transaction_certificates (transaction_id, organization_id)
select id, organization_id from transactions where completed_at is not null
on conflict (transaction_id) do nothing;
