-- Streaming integrations' syncs waiting to run: POST .../sync records one (with `syncing` set, in
-- the same transaction) and answers at once; a replica's worker takes it with FOR UPDATE SKIP
-- LOCKED, so replicas share the work and no sync runs twice at once. A failed run is tried again
-- after a backoff; one per integration at a time.
CREATE TABLE integration_sync_jobs (
  integration_id  bigint PRIMARY KEY REFERENCES integrations (id) ON DELETE CASCADE,
  run_after       timestamptz NOT NULL DEFAULT now(),
  attempts        integer NOT NULL DEFAULT 0
);
CREATE INDEX integration_sync_jobs_due_idx ON integration_sync_jobs (run_after);
