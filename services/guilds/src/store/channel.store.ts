import { sql, type Kysely, type SnowflakeGenerator } from '@kith/platform';
import type { Insertable, Transaction, Updateable } from 'kysely';
import type { Overwrite } from '../domain/permissions.js';
import { isThread, THREAD_TYPES, type ChannelRow } from './access.store.js';
import { guildsStore } from './guilds.store.js';
import type { ChannelsTable, GuildsDatabase } from './schema.js';

type Db = Kysely<GuildsDatabase>;
export type NewChannel = Insertable<ChannelsTable>;
export type ChannelPatch = Updateable<ChannelsTable>;

/** What deciding who sees a channel needs: the guild's owner, roles and every member's roles. */
export interface GuildSnapshot {
  guildId: string;
  ownerId: string;
  roles: Map<string, bigint>;
  members: { userId: string; roleIds: string[] }[];
}

/** Guild channels, threads and overwrites in SQL; every write runs in the caller's transaction. */
export class PgChannelStore {
  constructor(
    readonly db: Db,
    private readonly ids: SnowflakeGenerator,
  ) {}

  newId(): string {
    return this.ids.next();
  }

  transaction<T>(fn: (trx: Transaction<GuildsDatabase>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /**
   * Locks the guild row: the lock role changes take too (roles.service), so channel limits hold
   * under concurrent creates, and role and overwrite changes of one guild happen one after the
   * other. Every change of roles or overwrites locks in one order: guild row, then channel rows.
   */
  async lockGuild(trx: Db, guildId: string): Promise<void> {
    await guildsStore.lockGuild(trx, guildId);
  }

  /**
   * Locks a channel for a change: its guild first (the order creates and reorders take, so the
   * category and guild limits hold and no two changes wait on each other), then its row.
   */
  async lockChannel(trx: Db, id: string): Promise<void> {
    const row = await this.get(trx, id);
    if (row?.guild_id) await this.lockGuild(trx, row.guild_id);
    await this.get(trx, id, true);
  }

  get(db: Db, id: string, forUpdate = false): Promise<ChannelRow | undefined> {
    const query = db.selectFrom('channels').selectAll().where('id', '=', id);
    return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
  }

  listGuildChannels(db: Db, guildId: string): Promise<ChannelRow[]> {
    return listGuildChannels(db, guildId);
  }

  countGuildChannels(db: Db, guildId: string): Promise<number> {
    return countNonThreads(db, 'guild_id', guildId);
  }

  countInCategory(db: Db, categoryId: string): Promise<number> {
    return countNonThreads(db, 'parent_id', categoryId);
  }

  async nextPosition(db: Db, guildId: string): Promise<number> {
    const row = await db
      .selectFrom('channels')
      .select((eb) => eb.fn.max<number | null>('position').as('p'))
      .where('guild_id', '=', guildId)
      .executeTakeFirstOrThrow();
    return (row.p ?? -1) + 1;
  }

  insert(db: Db, values: NewChannel): Promise<ChannelRow> {
    return db.insertInto('channels').values(values).returningAll().executeTakeFirstOrThrow();
  }

  /** Writes the patch and answers the row; an empty patch (a PATCH of overwrites only) just reads it. */
  async update(db: Db, id: string, patch: ChannelPatch): Promise<ChannelRow> {
    if (Object.keys(patch).length === 0) return (await this.get(db, id))!;
    return db.updateTable('channels').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  /** Deletes a channel and its threads; its category's children fall back to no category. */
  async delete(db: Db, channel: ChannelRow): Promise<void> {
    await db.deleteFrom('channels').where('parent_id', '=', channel.id).where('type', 'in', THREAD_TYPES).execute();
    await db.updateTable('channels').set({ parent_id: null }).where('parent_id', '=', channel.id).execute();
    await db.deleteFrom('channels').where('id', '=', channel.id).execute();
  }

  async replaceOverwrites(db: Db, channelId: string, overwrites: readonly Overwrite[]): Promise<void> {
    await db.deleteFrom('permission_overwrites').where('channel_id', '=', channelId).execute();
    if (overwrites.length === 0) return;
    await db
      .insertInto('permission_overwrites')
      .values(overwrites.map((o) => ({ channel_id: channelId, target_id: o.id, type: o.type, allow: o.allow, deny: o.deny })))
      .execute();
  }

  async putOverwrite(db: Db, channelId: string, o: Overwrite): Promise<void> {
    await db
      .insertInto('permission_overwrites')
      .values({ channel_id: channelId, target_id: o.id, type: o.type, allow: o.allow, deny: o.deny })
      .onConflict((oc) => oc.columns(['channel_id', 'target_id']).doUpdateSet({ type: o.type, allow: o.allow, deny: o.deny }))
      .execute();
  }

  /** The guild's channels with an overwrite for `targetId`, locked in id order (the guild row is locked first). */
  channelsWithOverwrite(trx: Db, guildId: string, targetId: string): Promise<ChannelRow[]> {
    return trx
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

  async deleteOverwrite(db: Db, channelId: string, targetId: string): Promise<boolean> {
    const result = await db
      .deleteFrom('permission_overwrites')
      .where('channel_id', '=', channelId)
      .where('target_id', '=', targetId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Threads of a guild (not archived), or of one channel archived before a time, newest first. */
  activeThreads(db: Db, guildId: string): Promise<ChannelRow[]> {
    return db
      .selectFrom('channels')
      .selectAll()
      .where('guild_id', '=', guildId)
      .where('type', 'in', THREAD_TYPES)
      .where(sql<boolean>`coalesce((thread_metadata->>'archived')::boolean, false) = false`)
      .orderBy('id', 'desc')
      .execute();
  }

  archivedPublicThreads(db: Db, parentId: string, before: string, limit: number): Promise<ChannelRow[]> {
    return db
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

  async snapshot(db: Db, guildId: string): Promise<GuildSnapshot | undefined> {
    const guild = await db.selectFrom('guilds').select(['id', 'owner_id']).where('id', '=', guildId).executeTakeFirst();
    if (!guild) return undefined;
    const [roles, members] = await Promise.all([
      db.selectFrom('roles').select(['id', 'permissions']).where('guild_id', '=', guildId).execute(),
      db
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
}

/** A guild's channels (threads excluded), in the platform's order. */
export function listGuildChannels(db: Db, guildId: string): Promise<ChannelRow[]> {
  return db
    .selectFrom('channels')
    .selectAll()
    .where('guild_id', '=', guildId)
    .where('type', 'not in', THREAD_TYPES)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** The overwrite source of a channel: threads use their parent's. */
export const overwriteSourceOf = (channel: ChannelRow): string =>
  isThread(channel.type) && channel.parent_id ? channel.parent_id : channel.id;

/** Overwrites of several channels at once (listing a guild's channels). */
export async function overwritesOf(db: Db, channelIds: readonly string[]): Promise<Map<string, Overwrite[]>> {
  const map = new Map<string, Overwrite[]>(channelIds.map((id) => [id, []]));
  if (channelIds.length === 0) return map;
  const rows = await db.selectFrom('permission_overwrites').selectAll().where('channel_id', 'in', channelIds).execute();
  for (const o of rows) map.get(o.channel_id)?.push({ id: o.target_id, type: o.type, allow: BigInt(o.allow), deny: BigInt(o.deny) });
  return map;
}

/** Channels (threads do not count towards the guild's or a category's limit) whose `column` is `id`. */
async function countNonThreads(db: Db, column: 'guild_id' | 'parent_id', id: string): Promise<number> {
  const row = await db
    .selectFrom('channels')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(column, '=', id)
    .where('type', 'not in', THREAD_TYPES)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
