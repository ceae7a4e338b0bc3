-- A pending member (not past the member verification gate) keeps only VIEW_CHANNEL and
-- READ_MESSAGE_HISTORY: the permission check needs the member's `pending`. The function of 0010
-- with one more column (a function's result type cannot be changed in place).
DROP FUNCTION permission_checks(bigint[], bigint[], bigint[]);

CREATE FUNCTION permission_checks(p_guild_ids bigint[], p_user_ids bigint[], p_channel_ids bigint[])
RETURNS TABLE (
  idx bigint,
  owner_id bigint,
  guild_version bigint,
  is_member boolean,
  timed_out boolean,
  member_flags integer,
  pending boolean,
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
         COALESCE(m.pending, false),
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
