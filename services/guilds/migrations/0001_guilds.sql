-- The guilds service's data: guilds, their roles, channels (guild channels, threads, DMs and
-- group DMs), permission overwrites, members and bans. Ids are snowflakes; permission
-- bitfields are 64-bit integers (the platform's highest bits fit a signed bigint).

CREATE TABLE guilds (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  icon text,
  banner text,
  splash text,
  description text,
  owner_id bigint NOT NULL,
  afk_channel_id bigint,
  afk_timeout integer NOT NULL DEFAULT 300,
  system_channel_id bigint,
  system_channel_flags integer NOT NULL DEFAULT 0,
  rules_channel_id bigint,
  public_updates_channel_id bigint,
  verification_level smallint NOT NULL DEFAULT 0,
  default_message_notifications smallint NOT NULL DEFAULT 0,
  explicit_content_filter smallint NOT NULL DEFAULT 0,
  mfa_level smallint NOT NULL DEFAULT 0,
  nsfw_level smallint NOT NULL DEFAULT 0,
  preferred_locale text NOT NULL DEFAULT 'en-US',
  features text[] NOT NULL DEFAULT '{}',
  premium_progress_bar_enabled boolean NOT NULL DEFAULT false,
  -- Kept with every join and leave, in the same transaction.
  member_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX guilds_owner_idx ON guilds (owner_id);

CREATE TABLE roles (
  id bigint PRIMARY KEY,
  guild_id bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  name text NOT NULL,
  color integer NOT NULL DEFAULT 0,
  hoist boolean NOT NULL DEFAULT false,
  icon text,
  unicode_emoji text,
  position integer NOT NULL DEFAULT 0,
  permissions bigint NOT NULL DEFAULT 0,
  managed boolean NOT NULL DEFAULT false,
  mentionable boolean NOT NULL DEFAULT false,
  flags integer NOT NULL DEFAULT 0
);

CREATE INDEX roles_guild_idx ON roles (guild_id, position);

CREATE TABLE channels (
  id bigint PRIMARY KEY,
  type smallint NOT NULL,
  -- Null for DMs and group DMs.
  guild_id bigint REFERENCES guilds (id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  name text,
  topic text,
  nsfw boolean NOT NULL DEFAULT false,
  last_message_id bigint,
  bitrate integer,
  user_limit integer,
  rate_limit_per_user integer NOT NULL DEFAULT 0,
  -- A guild channel's category, or a thread's channel.
  parent_id bigint,
  -- A group DM's owner, or a thread's creator.
  owner_id bigint,
  icon text,
  rtc_region text,
  video_quality_mode smallint,
  default_auto_archive_duration integer,
  default_thread_rate_limit_per_user integer,
  default_sort_order smallint,
  default_forum_layout smallint,
  default_reaction_emoji jsonb,
  available_tags jsonb,
  applied_tags bigint[],
  -- Threads: archived, auto_archive_duration, archive_timestamp, locked, invitable, create_timestamp.
  thread_metadata jsonb,
  message_count integer,
  member_count integer,
  flags integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX channels_guild_idx ON channels (guild_id) WHERE guild_id IS NOT NULL;
CREATE INDEX channels_parent_idx ON channels (parent_id) WHERE parent_id IS NOT NULL;

-- DM and group DM recipients (the owner of a group DM is one of them).
CREATE TABLE channel_recipients (
  channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  user_id bigint NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, user_id)
);

CREATE INDEX channel_recipients_user_idx ON channel_recipients (user_id);

-- One DM channel per pair of users (lower id first): reused, never duplicated under races.
CREATE TABLE dm_pairs (
  low_user_id bigint NOT NULL,
  high_user_id bigint NOT NULL,
  channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  PRIMARY KEY (low_user_id, high_user_id),
  CHECK (low_user_id < high_user_id)
);

CREATE TABLE permission_overwrites (
  channel_id bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
  -- A role id or a user id.
  target_id bigint NOT NULL,
  -- 0 role, 1 member.
  type smallint NOT NULL CHECK (type IN (0, 1)),
  allow bigint NOT NULL DEFAULT 0,
  deny bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (channel_id, target_id)
);

CREATE TABLE members (
  guild_id bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  user_id bigint NOT NULL,
  nick text,
  avatar text,
  joined_at timestamptz NOT NULL DEFAULT now(),
  premium_since timestamptz,
  deaf boolean NOT NULL DEFAULT false,
  mute boolean NOT NULL DEFAULT false,
  pending boolean NOT NULL DEFAULT false,
  flags integer NOT NULL DEFAULT 0,
  -- Joined through a temporary invite.
  temporary boolean NOT NULL DEFAULT false,
  communication_disabled_until timestamptz,
  PRIMARY KEY (guild_id, user_id)
);

CREATE INDEX members_user_idx ON members (user_id);

CREATE TABLE member_roles (
  guild_id bigint NOT NULL,
  user_id bigint NOT NULL,
  role_id bigint NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  PRIMARY KEY (guild_id, user_id, role_id),
  FOREIGN KEY (guild_id, user_id) REFERENCES members (guild_id, user_id) ON DELETE CASCADE
);

CREATE INDEX member_roles_role_idx ON member_roles (role_id);

CREATE TABLE bans (
  guild_id bigint NOT NULL REFERENCES guilds (id) ON DELETE CASCADE,
  user_id bigint NOT NULL,
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (guild_id, user_id)
);
