-- Invites restricted to the users of a file (target_users_file): only they may see and accept.
ALTER TABLE invites ADD COLUMN targeted boolean NOT NULL DEFAULT false;

-- One processing job per targeted invite: the file as last uploaded and how far its check got.
CREATE TABLE invite_target_jobs (
  code             text PRIMARY KEY REFERENCES invites (code),
  -- 0 UNSPECIFIED, 1 PROCESSING, 2 COMPLETED, 3 FAILED
  status           smallint NOT NULL DEFAULT 1 CHECK (status BETWEEN 0 AND 3),
  -- The file's rows after its header, as uploaded (one a line): Get Target Users answers them.
  file             text NOT NULL,
  total_users      integer NOT NULL DEFAULT 0,
  processed_users  integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz,
  error_message    text,
  -- Each upload bumps it: a worker still busy with an older file cannot record its result.
  generation       integer NOT NULL DEFAULT 1,
  -- A worker's claim on the job; a claim that lapses (the worker died) is taken over.
  locked_until     timestamptz
);
CREATE INDEX invite_target_jobs_pending_idx ON invite_target_jobs (created_at) WHERE status = 1;

-- The users a completed job admitted.
CREATE TABLE invite_target_users (
  code     text NOT NULL REFERENCES invites (code),
  user_id  bigint NOT NULL,
  PRIMARY KEY (code, user_id)
);
