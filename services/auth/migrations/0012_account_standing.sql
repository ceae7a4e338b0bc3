-- Account standing (the spec's Authentication points 2 and 5, the login's required actions), set by
-- operators over gRPC: a suspended account logs in only to a suspended user token for the safety
-- hub; a locked one (a session flagged suspicious) until its password is reset; one whose password
-- must be updated gets `required_actions: ["update_password"]` at login until it is changed.
ALTER TABLE users
  ADD COLUMN suspended_at timestamptz,
  ADD COLUMN locked_at timestamptz,
  ADD COLUMN password_update_required boolean NOT NULL DEFAULT false;

-- What was done to an account and why, as the safety hub lists it; an appeal asks for its review.
CREATE TABLE classifications (
  id             bigint PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  action_type    integer NOT NULL,
  description    text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  lifted_at      timestamptz,
  appeal_id      bigint,
  appeal_status  integer,
  appeal_signal  integer,
  appeal_input   text
);
CREATE INDEX classifications_user_idx ON classifications (user_id) WHERE lifted_at IS NULL;

-- Whatever path sets a new password (change, reset, revert) ends a lock and a required update.
CREATE FUNCTION users_password_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.locked_at := NULL;
  NEW.password_update_required := false;
  RETURN NEW;
END $$;

CREATE TRIGGER users_password_changed
  BEFORE UPDATE OF password_hash ON users
  FOR EACH ROW WHEN (OLD.password_hash IS DISTINCT FROM NEW.password_hash)
  EXECUTE FUNCTION users_password_changed();
