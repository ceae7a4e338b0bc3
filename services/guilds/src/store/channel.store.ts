import { sql } from '@kith/platform';
import type { ChannelRepository } from '../domain/ports.js';
import type { Overwrite } from '../domain/permissions.js';
import { THREAD_TYPES, type ChannelPatch, type ChannelRecord, type GuildSnapshot, type NewChannel } from '../domain/records.js';
import type { Db } from './guilds.store.js';

/** The jsonb columns are written as JSON text. */
function columnsOf<T extends ChannelPatch>(values: T) {
  const { thread_metadata, available_tags, default_reaction_emoji, ...rest } = values;
  const json = (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value));
  return {
    ...rest,
    ...(thread_metadata !== undefined ? { thread_metadata: json(thread_metadata) } : {}),
    ...(available_tags !== undefined ? { available_tags: json(available_tags) } : {}),
    ...(default_reaction_emoji !== undefined ? { default_reaction_emoji: json(default_reaction_emoji) } : {}),
  };
}

const toOverwrite = (o: { target_id: string; type: number; allow: string; deny: string }): Overwrite => ({
  id: o.target_id,
  type: o.type,
  allow: BigInt(o.allow),
  deny: BigInt(o.deny),
});

/** Guild channels, threads, their overwrites, in SQL. */
export class PgChannels implements ChannelRepository {
  constructor(private readonly db: Db) {}

  /** The guild row first (the order creates and reorders take, so limits hold and no two changes wait on each other), then the channel's. */
  async lock(channelId: string): Promise<void> {
    const row = await this.get(channelId);
    if (row?.guild_id) await this.db.selectFrom('guilds').select('id').where('id', '=', row.guild_id).forNoKeyUpdate().execute();
    await this.get(channelId, true);
  }

  get(channelId: string, forUpdate = false): Promise<ChannelRecord | undefined> {
    const query = this.db.selectFrom('channels').selectAll().where('id', '=', channelId);
    return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
  }

  listInGuild(guildId: string): Promise<ChannelRecord[]> {
    return this.db
      .selectFrom('channels')
      .selectAll()
      .where('guild_id', '=', guildId)
      .where('type', 'not in', THREAD_TYPES)
      .orderBy('position')
      .orderBy('id')
      .execute();
  }

  countInGuild(guildId: string): Promise<number> {
    return this.countNonThreads('guild_id', guildId);
  }

  countInCategory(categoryId: string): Promise<number> {
    return this.countNonThreads('parent_id', categoryId);
  }

  async nextPosition(guildId: string): Promise<number> {
    const row = await this.db
      .selectFrom('channels')
      .select((eb) => eb.fn.max<number | null>('position').as('p'))
      .where('guild_id', '=', guildId)
      .executeTakeFirstOrThrow();
    return (row.p ?? -1) + 1;
  }

  insert(channel: NewChannel): Promise<ChannelRecord> {
    return this.db.insertInto('channels').values(columnsOf(channel)).returningAll().executeTakeFirstOrThrow();
  }

  async update(channelId: string, patch: ChannelPatch): Promise<ChannelRecord> {
    if (Object.keys(patch).length === 0) return (await this.get(channelId))!;
    return this.db.updateTable('channels').set(columnsOf(patch)).where('id', '=', channelId).returningAll().executeTakeFirstOrThrow();
  }

  async delete(channel: ChannelRecord): Promise<void> {
    await this.db.deleteFrom('channels').where('parent_id', '=', channel.id).where('type', 'in', THREAD_TYPES).execute();
    await this.db.updateTable('channels').set({ parent_id: null }).where('parent_id', '=', channel.id).execute();
    await this.db.deleteFrom('channels').where('id', '=', channel.id).execute();
  }

  async overwrites(channelId: string): Promise<Overwrite[]> {
    const rows = await this.db.selectFrom('permission_overwrites').selectAll().where('channel_id', '=', channelId).execute();
    return rows.map(toOverwrite);
  }

  async listInGuildWithOverwrites(guildId: string): Promise<{ rows: ChannelRecord[]; overwrites: Map<string, Overwrite[]> }> {
    const { rows: joined } = await sql<ChannelRecord & { o_target_id: string | null; o_type: number; o_allow: string; o_deny: string }>`
      SELECT c.*, o.target_id AS o_target_id, o.type AS o_type, o.allow AS o_allow, o.deny AS o_deny
      FROM channels c LEFT JOIN permission_overwrites o ON o.channel_id = c.id
      WHERE c.guild_id = ${guildId} AND c.type NOT IN (${sql.join(THREAD_TYPES)})
      ORDER BY c.position, c.id`.execute(this.db);
    const rows: ChannelRecord[] = [];
    const overwrites = new Map<string, Overwrite[]>();
    for (const { o_target_id, o_type, o_allow, o_deny, ...channel } of joined) {
      let own = overwrites.get(channel.id);
      if (!own) {
        overwrites.set(channel.id, (own = []));
        rows.push(channel as ChannelRecord);
      }
      if (o_target_id !== null) own.push(toOverwrite({ target_id: o_target_id, type: o_type, allow: o_allow, deny: o_deny }));
    }
    return { rows, overwrites };
  }

  async overwritesOf(channelIds: readonly string[]): Promise<Map<string, Overwrite[]>> {
    const map = new Map<string, Overwrite[]>(channelIds.map((id) => [id, []]));
    if (channelIds.length === 0) return map;
    const rows = await this.db.selectFrom('permission_overwrites').selectAll().where('channel_id', 'in', channelIds).execute();
    for (const o of rows) map.get(o.channel_id)?.push(toOverwrite(o));
    return map;
  }

  async replaceOverwrites(channelId: string, overwrites: readonly Overwrite[]): Promise<void> {
    await this.db.deleteFrom('permission_overwrites').where('channel_id', '=', channelId).execute();
    if (overwrites.length === 0) return;
    await this.db
      .insertInto('permission_overwrites')
      .values(overwrites.map((o) => ({ channel_id: channelId, target_id: o.id, type: o.type, allow: o.allow, deny: o.deny })))
      .execute();
  }

  async putOverwrite(channelId: string, o: Overwrite): Promise<void> {
    await this.db
      .insertInto('permission_overwrites')
      .values({ channel_id: channelId, target_id: o.id, type: o.type, allow: o.allow, deny: o.deny })
      .onConflict((oc) => oc.columns(['channel_id', 'target_id']).doUpdateSet({ type: o.type, allow: o.allow, deny: o.deny }))
      .execute();
  }

  async deleteOverwrite(channelId: string, targetId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('permission_overwrites')
      .where('channel_id', '=', channelId)
      .where('target_id', '=', targetId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  withOverwriteFor(guildId: string, targetId: string): Promise<ChannelRecord[]> {
    return this.db
      .selectFrom('channels')
      .selectAll('channels')
      .where('guild_id', '=', guildId)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('permission_overwrites as o')
            .select('o.channel_id')
            .whereRef('o.channel_id', '=', 'channels.id')
            .where('o.target_id', '=', targetId),
        ),
      )
      .orderBy('id')
      .forUpdate()
      .execute();
  }

  activeThreads(guildId: string): Promise<ChannelRecord[]> {
    return this.db
      .selectFrom('channels')
      .selectAll()
      .where('guild_id', '=', guildId)
      .where('type', 'in', THREAD_TYPES)
      .where(sql<boolean>`coalesce((thread_metadata->>'archived')::boolean, false) = false`)
      .orderBy('id', 'desc')
      .execute();
  }

  archivedPublicThreads(parentId: string, before: string, limit: number): Promise<ChannelRecord[]> {
    return this.db
      .selectFrom('channels')
      .selectAll()
      .where('parent_id', '=', parentId)
      .where('type', 'in', [10, 11])
      .where(sql<boolean>`(thread_metadata->>'archived')::boolean = true`)
      .where(sql<boolean>`(thread_metadata->>'archive_timestamp')::timestamptz < ${before}::timestamptz`)
      .orderBy(sql`(thread_metadata->>'archive_timestamp')::timestamptz`, 'desc')
      .limit(limit)
      .execute();
  }

  async snapshot(guildId: string): Promise<GuildSnapshot | undefined> {
    const guild = await this.db.selectFrom('guilds').select(['id', 'owner_id']).where('id', '=', guildId).executeTakeFirst();
    if (!guild) return undefined;
    const [roles, members] = await Promise.all([
      this.db.selectFrom('roles').select(['id', 'permissions']).where('guild_id', '=', guildId).execute(),
      this.db
        .selectFrom('members')
        .leftJoin('member_roles', (j) =>
          j.onRef('member_roles.guild_id', '=', 'members.guild_id').onRef('member_roles.user_id', '=', 'members.user_id'),
        )
        .select(['members.user_id', 'member_roles.role_id'])
        .where('members.guild_id', '=', guildId)
        .orderBy('members.user_id')
        .execute(),
    ]);
    const byUser = new Map<string, string[]>();
    for (const m of members) {
      const list = byUser.get(m.user_id) ?? [];
      if (m.role_id) list.push(m.role_id);
      byUser.set(m.user_id, list);
    }
    return {
      guildId,
      ownerId: guild.owner_id,
      roles: new Map(roles.map((r) => [r.id, BigInt(r.permissions)])),
      members: [...byUser].map(([userId, roleIds]) => ({ userId, roleIds })),
    };
  }

  private async countNonThreads(column: 'guild_id' | 'parent_id', id: string): Promise<number> {
    const row = await this.db
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(column, '=', id)
      .where('type', 'not in', THREAD_TYPES)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
