-- The integrations service's data: applications (with their bot and commands), the users who
-- authorized them, guild and group DM integrations, users' connected provider accounts, and what
-- streaming integrations learned from their provider. Ids are snowflakes; provider account ids
-- are the provider's own strings.

CREATE TABLE applications (
  id                                 bigint PRIMARY KEY,
  owner_id                           bigint NOT NULL,
  name                               text NOT NULL,
  description                        text NOT NULL DEFAULT '',
  icon                               text,
  flags                              integer NOT NULL DEFAULT 0,
  -- Created with the application through auth (a `bot: true` user).
  bot_user_id                        bigint UNIQUE,
  bot_public                         boolean NOT NULL DEFAULT true,
  bot_require_code_grant             boolean NOT NULL DEFAULT false,
  redirect_uris                      text[] NOT NULL DEFAULT '{}',
  role_connections_verification_url  text,
  -- Hex of an Ed25519 public key, as the platform shows it.
  verify_key                         text NOT NULL,
  created_at                         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX applications_owner_idx ON applications (owner_id);

-- Global commands have no guild.
CREATE TABLE application_commands (
  id              bigint PRIMARY KEY,
  application_id  bigint NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  guild_id        bigint,
  type            smallint NOT NULL DEFAULT 1 CHECK (type BETWEEN 1 AND 4),
  name            text NOT NULL,
  description     text NOT NULL DEFAULT '',
  options         jsonb NOT NULL DEFAULT '[]',
  version         bigint NOT NULL
);
CREATE UNIQUE INDEX application_commands_name_idx ON application_commands (application_id, COALESCE(guild_id, 0), type, name);
CREATE INDEX application_commands_guild_idx ON application_commands (guild_id) WHERE guild_id IS NOT NULL;

CREATE TABLE role_connection_metadata (
  application_id  bigint PRIMARY KEY REFERENCES applications (id) ON DELETE CASCADE,
  records         jsonb NOT NULL DEFAULT '[]'
);

-- A user's OAuth2 authorization of an application (the most recent scopes).
CREATE TABLE oauth2_authorizations (
  id              bigint PRIMARY KEY,
  user_id         bigint NOT NULL,
  application_id  bigint NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  scopes          text[] NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, application_id)
);

-- A guild's integrations (applications, streaming accounts) and a group DM's applications.
CREATE TABLE integrations (
  id                   bigint PRIMARY KEY,
  guild_id             bigint,
  channel_id           bigint,
  -- The platform's type names.
  type                 text NOT NULL CHECK (type IN ('discord', 'twitch', 'youtube', 'guild_subscription')),
  name                 text NOT NULL,
  enabled              boolean NOT NULL DEFAULT true,
  account_id           text NOT NULL,
  account_name         text NOT NULL,
  application_id       bigint REFERENCES applications (id) ON DELETE CASCADE,
  scopes               text[] NOT NULL DEFAULT '{}',
  -- Who added it.
  user_id              bigint,
  -- Streaming integrations only.
  syncing              boolean,
  role_id              bigint,
  enable_emoticons     boolean,
  expire_behavior      smallint CHECK (expire_behavior IN (0, 1)),
  expire_grace_period  smallint CHECK (expire_grace_period IN (1, 3, 7, 14, 30)),
  synced_at            timestamptz,
  subscriber_count     integer,
  revoked              boolean,
  created_at           timestamptz NOT NULL DEFAULT now(),
  CHECK ((guild_id IS NULL) <> (channel_id IS NULL))
);
CREATE UNIQUE INDEX integrations_guild_account_idx ON integrations (guild_id, type, account_id) WHERE guild_id IS NOT NULL;
CREATE UNIQUE INDEX integrations_channel_app_idx ON integrations (channel_id, application_id) WHERE channel_id IS NOT NULL;
CREATE INDEX integrations_account_idx ON integrations (type, account_id);
CREATE INDEX integrations_application_idx ON integrations (application_id) WHERE application_id IS NOT NULL;

-- A user's connected provider accounts; one Kith user per provider account.
CREATE TABLE connections (
  user_id              bigint NOT NULL,
  type                 text NOT NULL,
  account_id           text NOT NULL,
  name                 text NOT NULL,
  -- OAuth tokens, sealed (AES-256-GCM) with the service's key: never stored readable.
  access_token         text,
  refresh_token        text,
  token_expires_at     timestamptz,
  revoked              boolean NOT NULL DEFAULT false,
  visibility           smallint NOT NULL DEFAULT 1,
  friend_sync          boolean NOT NULL DEFAULT false,
  show_activity        boolean NOT NULL DEFAULT true,
  metadata_visibility  smallint NOT NULL DEFAULT 1,
  created_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, type, account_id),
  UNIQUE (type, account_id)
);

-- The provider accounts subscribed to a streaming integration's account, as its last sync saw
-- them; `lapsed_at` is when a sync first missed one.
CREATE TABLE integration_subscribers (
  integration_id  bigint NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
  account_id      text NOT NULL,
  account_name    text NOT NULL DEFAULT '',
  lapsed_at       timestamptz,
  PRIMARY KEY (integration_id, account_id)
);
CREATE INDEX integration_subscribers_account_idx ON integration_subscribers (account_id);

-- Users given an integration's subscriber role (by a sync or by joining through it).
CREATE TABLE integration_grants (
  integration_id  bigint NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
  user_id         bigint NOT NULL,
  account_id      text NOT NULL,
  granted_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (integration_id, user_id)
);
