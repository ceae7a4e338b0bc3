import { sql, type Kysely } from '@kith/platform';
import type { Insertable, Selectable, Transaction, Updateable } from 'kysely';
import type { ChannelsTable, GuildsDatabase, GuildsTable } from './schema.js';

export type GuildRow = Selectable<GuildsTable>;
/** A database handle or an open transaction: every read below works in either. */
export type Db = Kysely<GuildsDatabase>;
/** An open transaction: what writes that enqueue events run in. */
export type Tx = Transaction<GuildsDatabase>;

/** The SQL of guilds (and the channel reads rendering them needs); the domain services decide. */
export const guildsStore = {
  /**
   * Locks the guild row: role positions, member counts and ownership change one at a time. FOR NO
   * KEY UPDATE (what an UPDATE of the row takes, the permission-version triggers included) still
   * serialises every locker, but lets inserts that merely reference the guild (their foreign-key
   * check takes KEY SHARE) go on meanwhile.
   */
  async lockGuild(trx: Db, guildId: string): Promise<GuildRow | undefined> {
    return trx.selectFrom('guilds').selectAll().where('id', '=', guildId).forNoKeyUpdate().executeTakeFirst();
  },

  guild(db: Db, guildId: string): Promise<GuildRow | undefined> {
    return db.selectFrom('guilds').selectAll().where('id', '=', guildId).executeTakeFirst();
  },

  async insertGuild(trx: Db, guild: Insertable<GuildsTable>): Promise<void> {
    await trx.insertInto('guilds').values(guild).execute();
  },

  async updateGuild(trx: Db, guildId: string, changes: Updateable<GuildsTable>): Promise<GuildRow> {
    return trx.updateTable('guilds').set(changes).where('id', '=', guildId).returningAll().executeTakeFirstOrThrow();
  },

  async deleteGuild(trx: Db, guildId: string): Promise<void> {
    await trx.deleteFrom('guilds').where('id', '=', guildId).execute();
  },

  /** The user's guilds in id order, a page at a time (`before`/`after` exclusive). */
  async guildsOf(db: Db, userId: string, page: { before?: string; after?: string; limit: number }): Promise<GuildRow[]> {
    let query = db
      .selectFrom('guilds')
      .selectAll('guilds')
      .innerJoin('members', 'members.guild_id', 'guilds.id')
      .where('members.user_id', '=', userId);
    if (page.after) query = query.where('guilds.id', '>', page.after);
    if (page.before) query = query.where('guilds.id', '<', page.before);
    // With only `before`, the page is the one just before it, still returned in ascending order.
    if (page.before && !page.after) {
      const rows = await query
        .orderBy(sql`guilds.id::bigint`, 'desc')
        .limit(page.limit)
        .execute();
      return rows.reverse();
    }
    return query
      .orderBy(sql`guilds.id::bigint`)
      .limit(page.limit)
      .execute();
  },

  /** For permission math over many guilds at once: every role of these guilds, and the user's role ids in them. */
  async rolesAndMemberRoles(db: Db, guildIds: readonly string[], userId: string) {
    if (guildIds.length === 0) return { roles: [], memberRoles: [] };
    const [roles, memberRoles] = await Promise.all([
      db.selectFrom('roles').select(['id', 'guild_id', 'permissions']).where('guild_id', 'in', guildIds).execute(),
      db
        .selectFrom('member_roles')
        .select(['guild_id', 'role_id'])
        .where('user_id', '=', userId)
        .where('guild_id', 'in', guildIds)
        .execute(),
    ]);
    return { roles, memberRoles };
  },

  async guildIdsOf(db: Db, userId: string): Promise<string[]> {
    const rows = await db.selectFrom('members').select('guild_id').where('user_id', '=', userId).orderBy('guild_id').execute();
    return rows.map((r) => r.guild_id);
  },

  /** The guilds both users are members of, with their member counts. */
  async mutualGuilds(db: Db, a: string, b: string): Promise<{ id: string; memberCount: number }[]> {
    const rows = await db
      .selectFrom('members as x')
      .innerJoin('members as y', 'y.guild_id', 'x.guild_id')
      .innerJoin('guilds', 'guilds.id', 'x.guild_id')
      .select(['x.guild_id', 'guilds.member_count'])
      .where('x.user_id', '=', a)
      .where('y.user_id', '=', b)
      .orderBy('x.guild_id')
      .execute();
    return rows.map((r) => ({ id: r.guild_id, memberCount: r.member_count }));
  },

  // Channels: only the default channel of a new guild is made here; the channels part owns the rest.

  async insertChannel(trx: Db, channel: Insertable<ChannelsTable>): Promise<void> {
    await trx.insertInto('channels').values(channel).execute();
  },

  async isGuildChannel(db: Db, guildId: string, channelId: string): Promise<boolean> {
    const row = await db.selectFrom('channels').select('id').where('id', '=', channelId).where('guild_id', '=', guildId).executeTakeFirst();
    return row !== undefined;
  },
};
