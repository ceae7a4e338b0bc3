-- Guests (guest invites): not members. Each row is one gateway session's access to one voice
-- channel of a guild; it ends when that session's connection closes, the user's last connection
-- closes, the user is banned, or the guild goes (then the session hears GUILD_DELETE).
CREATE TABLE guild_guests (
  guild_id    bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  user_id     bigint NOT NULL,
  session_id  text NOT NULL,
  channel_id  bigint NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (guild_id, user_id, session_id)
);
CREATE INDEX guild_guests_user_idx ON guild_guests (user_id);
