-- Device push tokens (the platform's Register Device, POST /users/@me/devices). A device token is
-- held by the session that registered it last, one registration per (provider, token); a session
-- that ends (logout, another session logging it out, a password change) takes its tokens along, so
-- a signed-out device is never pushed to.
CREATE TABLE push_devices (
  provider    text NOT NULL,
  token       text NOT NULL,
  session_id  text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  bundle_id   text,
  bypass_server_throttling boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, token)
);
CREATE INDEX push_devices_session_idx ON push_devices (session_id);
CREATE INDEX push_devices_user_idx ON push_devices (user_id);

CREATE FUNCTION push_devices_end_with_session() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM push_devices WHERE session_id = NEW.id;
  RETURN NEW;
END $$;

CREATE TRIGGER sessions_revoked_drop_push_devices
  AFTER UPDATE OF revoked_at ON sessions
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
  EXECUTE FUNCTION push_devices_end_with_session();
