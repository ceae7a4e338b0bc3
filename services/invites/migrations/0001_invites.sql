-- Every invite ever made, live or not: a code is never handed out twice, so a deleted, expired or
-- used-up invite keeps its row (deleted_at set) and its code stays taken.
CREATE TABLE invites (
  code                   text PRIMARY KEY CHECK (code ~ '^[A-Za-z0-9]{8,10}$'),
  -- 0 GUILD, 1 GROUP_DM, 2 FRIEND
  type                   smallint NOT NULL CHECK (type BETWEEN 0 AND 2),
  guild_id               bigint,
  channel_id             bigint,
  inviter_id             bigint NOT NULL,
  max_age                integer NOT NULL CHECK (max_age >= 0),
  max_uses               integer NOT NULL CHECK (max_uses >= 0),
  -- Accepts that joined someone, and accepts in flight (reserved, not yet confirmed or released).
  uses                   integer NOT NULL DEFAULT 0 CHECK (uses >= 0),
  pending                integer NOT NULL DEFAULT 0 CHECK (pending >= 0),
  temporary              boolean NOT NULL DEFAULT false,
  flags                  integer NOT NULL DEFAULT 0,
  target_type            smallint,
  target_user_id         bigint,
  target_application_id  bigint,
  role_ids               bigint[] NOT NULL DEFAULT '{}',
  created_at             timestamptz NOT NULL DEFAULT now(),
  expires_at             timestamptz,
  deleted_at             timestamptz,
  CHECK (max_uses = 0 OR uses + pending <= max_uses)
);
CREATE INDEX invites_guild_idx ON invites (guild_id) WHERE deleted_at IS NULL;
CREATE INDEX invites_channel_idx ON invites (channel_id) WHERE deleted_at IS NULL;
CREATE INDEX invites_inviter_idx ON invites (inviter_id, type) WHERE deleted_at IS NULL;

-- The applications an invite may open (target type EMBEDDED_APPLICATION), until the integrations
-- service owns applications and answers this over gRPC. flags is the platform's application flags.
CREATE TABLE applications (
  id     bigint PRIMARY KEY,
  name   text NOT NULL,
  flags  bigint NOT NULL DEFAULT 0
);
