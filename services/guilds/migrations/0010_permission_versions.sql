-- Permission versions: CheckPermissions keeps each guild's roles and each channel's overwrites in
-- process and must never serve them stale, from any replica. Every change that can alter a
-- permission decision moves a version the per-check query reads:
--   guilds.permission_version   the guild's roles (created, deleted, permissions changed) and owner;
--   channels.overwrite_version  the channel's permission overwrites.
-- Values come from one sequence, so a version is never reused, not even by a transaction that
-- rolled back: whatever a cache stored under a version is that version's data.
-- (Member roles, timeouts and flags are read by every check and need no version.)

CREATE SEQUENCE permission_version_seq;

ALTER TABLE guilds ADD COLUMN permission_version bigint NOT NULL DEFAULT nextval('permission_version_seq');
ALTER TABLE channels ADD COLUMN overwrite_version bigint NOT NULL DEFAULT nextval('permission_version_seq');

CREATE FUNCTION bump_guild_permission_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A guild being deleted takes its roles with it: the row is already gone and nothing is updated.
  UPDATE guilds SET permission_version = nextval('permission_version_seq')
  WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.guild_id ELSE NEW.guild_id END;
  RETURN NULL;
END $$;

CREATE TRIGGER roles_permission_version_insert_delete
  AFTER INSERT OR DELETE ON roles
  FOR EACH ROW EXECUTE FUNCTION bump_guild_permission_version();

-- Names, colours and positions do not change a decision; permissions (and a move between guilds) do.
CREATE TRIGGER roles_permission_version_update
  AFTER UPDATE ON roles
  FOR EACH ROW WHEN (OLD.permissions IS DISTINCT FROM NEW.permissions OR OLD.guild_id IS DISTINCT FROM NEW.guild_id)
  EXECUTE FUNCTION bump_guild_permission_version();

CREATE FUNCTION bump_owner_permission_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.permission_version := nextval('permission_version_seq');
  RETURN NEW;
END $$;

CREATE TRIGGER guilds_owner_permission_version
  BEFORE UPDATE OF owner_id ON guilds
  FOR EACH ROW WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id)
  EXECUTE FUNCTION bump_owner_permission_version();

CREATE FUNCTION bump_channel_overwrite_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A channel being deleted takes its overwrites with it: nothing to update then.
  IF TG_OP <> 'INSERT' THEN
    UPDATE channels SET overwrite_version = nextval('permission_version_seq') WHERE id = OLD.channel_id;
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.channel_id IS DISTINCT FROM OLD.channel_id) THEN
    UPDATE channels SET overwrite_version = nextval('permission_version_seq') WHERE id = NEW.channel_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER permission_overwrites_version
  AFTER INSERT OR UPDATE OR DELETE ON permission_overwrites
  FOR EACH ROW EXECUTE FUNCTION bump_channel_overwrite_version();

-- The one query of CheckPermissions, as a function: PL/pgSQL keeps the plans of its statements
-- for the session, so the hot path is not parsed and planned again on every call (a client-side
-- named statement would do the same, but the query builder has none). It answers several checks
-- at once (the service batches the checks that arrive together): element i of the arrays is one
-- check, answered by the row with idx i (none when the guild does not exist). With a channel: its
-- guild, its type, and the channel whose overwrites apply (a thread's parent).
CREATE FUNCTION permission_checks(p_guild_ids bigint[], p_user_ids bigint[], p_channel_ids bigint[])
RETURNS TABLE (
  idx bigint,
  owner_id bigint,
  guild_version bigint,
  is_member boolean,
  timed_out boolean,
  member_flags integer,
  role_ids bigint[],
  channel_guild_id bigint,
  channel_type smallint,
  source_id bigint,
  source_version bigint
) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT r.idx, g.owner_id, g.permission_version,
         m.user_id IS NOT NULL, COALESCE(m.communication_disabled_until > now(), false), m.flags,
         ARRAY(SELECT mr.role_id FROM member_roles mr WHERE mr.guild_id = r.guild_id AND mr.user_id = r.user_id),
         c.guild_id, c.type,
         CASE WHEN c.type IN (10, 11, 12) AND c.parent_id IS NOT NULL THEN c.parent_id ELSE c.id END,
         CASE WHEN c.type IN (10, 11, 12) AND c.parent_id IS NOT NULL THEN p.overwrite_version ELSE c.overwrite_version END
  FROM unnest(p_guild_ids, p_user_ids, p_channel_ids) WITH ORDINALITY AS r (guild_id, user_id, channel_id, idx)
  JOIN guilds g ON g.id = r.guild_id
  LEFT JOIN members m ON m.guild_id = r.guild_id AND m.user_id = r.user_id
  LEFT JOIN channels c ON c.id = r.channel_id
  LEFT JOIN channels p ON p.id = c.parent_id;
END $$;
