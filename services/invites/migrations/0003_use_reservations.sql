-- Each use of a limited invite (max_uses > 0) that an accept has reserved and not yet confirmed or
-- given back, with `invites.pending` counting them. A process that dies between reserving and
-- settling leaves its row: once it expires, the reconciler asks guilds (or social) whether the join
-- happened and counts or frees the use, so no use stays reserved forever.
CREATE TABLE invite_use_reservations (
  id          uuid PRIMARY KEY,
  code        text NOT NULL REFERENCES invites (code),
  user_id     bigint NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX invite_use_reservations_expiry_idx ON invite_use_reservations (expires_at);
