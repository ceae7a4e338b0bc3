-- A payment a request makes on a subscription the user holds (an upgrade charged now, an open
-- invoice paid, a pause ended early) is recorded, committed, before the gateway is asked: what it
-- is for (`purpose`), the exact request the gateway is sent (`charge_request`, with its fixed
-- idempotency key in `idempotency_key`), and who is asking it now (`lease_until`). Whoever finds
-- it pending (the request retried, or the scheduler after the lease) sends the same request again,
-- which the gateway answers with the first charge, and settles it: the charge is never lost with a
-- crash and never taken twice. A charge that can no longer be applied is refunded (`refund_due`
-- until the gateway has refunded it).
ALTER TABLE payments
  ADD COLUMN purpose         jsonb,
  ADD COLUMN charge_request  jsonb,
  ADD COLUMN request_hash    text,
  ADD COLUMN lease_until     timestamptz,
  ADD COLUMN refund_due      boolean NOT NULL DEFAULT false;

-- One such payment under way per subscription.
CREATE UNIQUE INDEX payments_open_per_subscription_idx ON payments (subscription_id) WHERE status = 0 AND purpose IS NOT NULL;
CREATE INDEX payments_refund_due_idx ON payments (id) WHERE refund_due;
