-- Attachment files to remove from object storage. A deletion of messages (one, or all of a
-- webhook's, a channel's or a guild's) writes their files' keys here in its own transaction; a
-- worker in every replica removes them from the store (FOR UPDATE SKIP LOCKED) and then the row,
-- so a crash or an unreachable store delays the removal but never forgets it.
CREATE TABLE object_deletions (
  key         text PRIMARY KEY,
  not_before  timestamptz NOT NULL DEFAULT now(),
  attempts    integer NOT NULL DEFAULT 0
);
CREATE INDEX object_deletions_due_idx ON object_deletions (not_before);
