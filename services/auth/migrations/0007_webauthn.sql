-- WebAuthn credentials (security keys and discoverable passkeys). They count as a second factor
-- alongside TOTP (which must be on first); users.webauthn_enabled mirrors "has at least one" so the
-- user view needs no join. `counter` is the last signature counter seen, for clone detection.
CREATE TABLE webauthn_credentials (
  id          bigint PRIMARY KEY,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  cred_id     text NOT NULL UNIQUE,
  public_key  bytea NOT NULL,
  counter     bigint NOT NULL DEFAULT 0,
  transports  text[] NOT NULL DEFAULT '{}',
  name        text NOT NULL,
  last_used   timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webauthn_credentials_user_idx ON webauthn_credentials (user_id);

ALTER TABLE users ADD COLUMN webauthn_enabled boolean NOT NULL DEFAULT false;
