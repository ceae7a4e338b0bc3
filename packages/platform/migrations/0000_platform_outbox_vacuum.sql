-- Every event becomes a dead row version when the relay marks it sent, and another when it is
-- pruned an hour later. With the default (vacuum when 20% of the table is dead) a busy outbox keeps
-- tens of thousands of dead versions that the relay's pending-index reads still step over; vacuum
-- it after every thousand instead (autovacuum looks at each database once a minute).
ALTER TABLE outbox SET (
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_analyze_scale_factor = 0,
  autovacuum_analyze_threshold = 1000
);
