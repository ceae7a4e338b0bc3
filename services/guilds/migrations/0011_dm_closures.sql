-- A DM a user has closed (DELETE /channels/{id}): it leaves their list of private channels but
-- they stay its recipient, so they can still read it and it reopens when they open it again.
CREATE TABLE dm_closures (
  channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  user_id bigint NOT NULL,
  closed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, user_id)
);
