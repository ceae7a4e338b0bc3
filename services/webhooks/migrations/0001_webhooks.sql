-- The webhooks service's data: webhooks and the messages posted through them. Ids are snowflakes.
-- A webhook's token is kept twice, neither in plain text: its SHA-256 digest, which a presented
-- token is compared with (in constant time), and AES-256-GCM ciphertext under the service's key,
-- decrypted only to show the token again to those who may manage the webhook.

CREATE TABLE webhooks (
  id                 bigint PRIMARY KEY,
  type               smallint NOT NULL CHECK (type BETWEEN 1 AND 3),
  guild_id           bigint NOT NULL,
  channel_id         bigint NOT NULL,
  -- The user who created it; null once unknown.
  user_id            bigint,
  name               text NOT NULL,
  avatar             text,
  application_id     bigint,
  token_digest       bytea NOT NULL,
  token_sealed       bytea NOT NULL,
  -- CHANNEL_FOLLOWER webhooks: the followed channel, as the platform shows it.
  source_guild       jsonb,
  source_channel     jsonb,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_channel_idx ON webhooks (channel_id, id);
CREATE INDEX webhooks_guild_idx ON webhooks (guild_id, id);
CREATE INDEX webhooks_application_idx ON webhooks (application_id) WHERE application_id IS NOT NULL;

-- Avatars arrive as data URIs; the webhook object carries the hash, this keeps the image.
CREATE TABLE avatars (
  hash          text PRIMARY KEY,
  content_type  text NOT NULL,
  data          bytea NOT NULL
);

-- Messages a webhook posted. `channel_id` is where the message is: the thread when posted into one.
CREATE TABLE messages (
  id                bigint PRIMARY KEY,
  webhook_id        bigint NOT NULL,
  guild_id          bigint NOT NULL,
  channel_id        bigint NOT NULL,
  -- The webhook's own channel (a thread's parent), for removal with it.
  parent_channel_id bigint NOT NULL,
  application_id    bigint,
  author_name       text NOT NULL,
  author_avatar     text,
  avatar_url        text,
  content           text NOT NULL DEFAULT '',
  tts               boolean NOT NULL DEFAULT false,
  flags             integer NOT NULL DEFAULT 0,
  embeds            jsonb NOT NULL DEFAULT '[]',
  attachments       jsonb NOT NULL DEFAULT '[]',
  components        jsonb NOT NULL DEFAULT '[]',
  mentions          jsonb NOT NULL DEFAULT '[]',
  mention_roles     jsonb NOT NULL DEFAULT '[]',
  mention_everyone  boolean NOT NULL DEFAULT false,
  poll              jsonb,
  created_at        timestamptz NOT NULL DEFAULT now(),
  edited_at         timestamptz
);
CREATE INDEX messages_webhook_idx ON messages (webhook_id, id);
CREATE INDEX messages_channel_idx ON messages (channel_id, id);
CREATE INDEX messages_parent_idx ON messages (parent_channel_id);
CREATE INDEX messages_guild_idx ON messages (guild_id);
