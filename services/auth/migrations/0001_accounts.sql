-- Accounts and their sign-in sessions. Snowflake ids are bigint; tokens are stored only as hashes.
CREATE TABLE users (
  id             bigint PRIMARY KEY,
  username       text NOT NULL,
  discriminator  text NOT NULL DEFAULT '0',
  global_name    text,
  email          text,
  phone          text,
  password_hash  text,
  date_of_birth  date,
  avatar         text,
  bio            text NOT NULL DEFAULT '',
  locale         text NOT NULL DEFAULT 'en-US',
  theme          text NOT NULL DEFAULT 'dark',
  flags          bigint NOT NULL DEFAULT 0,
  public_flags   bigint NOT NULL DEFAULT 0,
  verified       boolean NOT NULL DEFAULT false,
  bot            boolean NOT NULL DEFAULT false,
  mfa_enabled    boolean NOT NULL DEFAULT false,
  premium_type   integer NOT NULL DEFAULT 0,
  promotional_email_opt_in boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  disabled_at    timestamptz,
  deleted_at     timestamptz
);
-- Usernames and emails are unique regardless of case; a race between two registrations is
-- settled here, not by a read-then-write in the code.
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX users_phone_key ON users (phone) WHERE phone IS NOT NULL;

CREATE TABLE sessions (
  id               text PRIMARY KEY,
  id_hash          text NOT NULL UNIQUE,
  user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash       bytea NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_used_at     timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  client_os        text,
  client_platform  text,
  client_location  text,
  client_ip        text,
  revoked_at       timestamptz
);
CREATE INDEX sessions_user_active_idx ON sessions (user_id, last_used_at DESC) WHERE revoked_at IS NULL;
