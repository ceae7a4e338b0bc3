-- A guild's custom emojis; for now only those an integration manages (a Twitch integration's
-- subscriber emotes, `integration_id` and the provider's `source_id` naming them), usable by the
-- members holding one of `role_ids` (empty: everyone).
CREATE TABLE emojis (
  id bigint PRIMARY KEY,
  guild_id bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  name text NOT NULL,
  role_ids bigint[] NOT NULL DEFAULT '{}',
  managed boolean NOT NULL DEFAULT false,
  animated boolean NOT NULL DEFAULT false,
  available boolean NOT NULL DEFAULT true,
  integration_id bigint,
  source_id text,
  image_url text
);

CREATE INDEX emojis_guild_idx ON emojis (guild_id);
CREATE UNIQUE INDEX emojis_integration_source_idx ON emojis (guild_id, integration_id, source_id) WHERE integration_id IS NOT NULL;
