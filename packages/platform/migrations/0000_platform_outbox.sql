-- The transactional outbox every service database has: a service writes its domain events here in
-- the same transaction as the change; the relay publishes them to JetStream and marks them sent.
-- Platform migrations are named 0000_platform_* so they sort before any service's own.
CREATE TABLE outbox (
  -- The event's snowflake, also its Nats-Msg-Id: the stream drops a republished copy.
  id          bigint PRIMARY KEY,
  -- Insertion order: the relay publishes in this order.
  seq         bigserial NOT NULL,
  subject     text NOT NULL,
  envelope    jsonb NOT NULL,
  -- W3C trace context of the transaction that wrote the event.
  headers     jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  sent_at     timestamptz
);
-- The relay's only hot query reads the unsent rows in order; sent rows leave this index.
CREATE INDEX outbox_pending_idx ON outbox (seq) WHERE sent_at IS NULL;
-- Pruning finds old sent rows without scanning the pending ones.
CREATE INDEX outbox_sent_idx ON outbox (sent_at) WHERE sent_at IS NOT NULL;
