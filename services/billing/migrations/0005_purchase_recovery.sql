-- A purchase keeps what it was asked (`request`) and, before its charge, the exact request the
-- gateway is sent (`charge_request`, under the purchase's fixed idempotency key). A purchase whose
-- asker died and that nobody retried is finished by the scheduler once its lease has passed: as
-- asked, charging at most once (the same request again); or, when it can no longer be made (the
-- user holds the tier by now, its price changed), with the charge the gateway took given back.
ALTER TABLE purchases
  ADD COLUMN request         jsonb,
  ADD COLUMN charge_request  jsonb;
CREATE INDEX purchases_pending_idx ON purchases (lease_until) WHERE state = 'pending';
