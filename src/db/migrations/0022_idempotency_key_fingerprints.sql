-- The API calls of a transaction's timeline kept their Idempotency-Key in clear, and every console role, viewers
-- included, read it: the key seals the result stored for it (idempotency_keys holds only its hash). They keep a
-- fingerprint instead, the first 8 hex digits of the SHA-256 of the key (src/transactions/idempotency.ts), which
-- is what the code writes from now on. sha256() is built in since PostgreSQL 11, and in PGlite.
update transaction_activity
set details = (details - 'idempotencyKey')
  || jsonb_build_object(
    'idempotencyKeySha256',
    substr(encode(sha256(convert_to(details ->> 'idempotencyKey', 'UTF8')), 'hex'), 1, 8)
  )
where kind = 'api' and details ? 'idempotencyKey';
