-- Multi-factor authentication. A user's TOTP secret, and its backup codes: each stored as a hash for
-- lookup, plus sealed with a key derived from the TOTP secret so `codes-verification` can show them.
CREATE TABLE user_totp (
  user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE backup_codes (
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  position     smallint NOT NULL,
  code_hash    bytea NOT NULL,
  code_sealed  text NOT NULL,
  consumed     boolean NOT NULL DEFAULT false,
  PRIMARY KEY (user_id, position)
);
CREATE UNIQUE INDEX backup_codes_lookup_idx ON backup_codes (user_id, code_hash);
