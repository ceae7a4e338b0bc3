import { sql, type Kysely } from '@kith/platform';
import type { Insertable, Selectable, Transaction, Updateable } from 'kysely';
import type { Overwrite } from '../domain/permissions.js';
import type { BansTable, GuildsDatabase, GuildsTable, MembersTable, RolesTable } from './schema.js';

export type GuildRow = Selectable<GuildsTable>;
export type RoleRow = Selectable<RolesTable>;
export type BanRow = Selectable<BansTable>;
export type MemberRow = Selectable<MembersTable> & { role_ids: string[] };
/** A database handle or an open transaction: every read below works in either. */
export type Db = Kysely<GuildsDatabase>;
/** An open transaction: what writes that enqueue events run in. */
export type Tx = Transaction<GuildsDatabase>;

/** Arbitrary constant naming "a user's guild memberships" among this database's advisory locks. */
const MEMBERSHIP_LOCK_SPACE = 7_340_501;

/** Member rows with their role ids (without `@everyone`), one query. */
function membersQuery(db: Db, guildId: string) {
  return db
    .selectFrom('members as m')
    .selectAll('m')
    .select(
      sql<string[]>`coalesce((SELECT array_agg(r.role_id ORDER BY r.role_id) FROM member_roles r
        WHERE r.guild_id = m.guild_id AND r.user_id = m.user_id), '{}')`.as('role_ids'),
    )
    .where('m.guild_id', '=', guildId);
}

/** The SQL of guilds, roles, members and bans; the domain services decide, this reads and writes. */
export const guildsStore = {
  /**
   * Serialises every join, leave and create of one user (transaction-scoped), so the 100-guild cap
   * holds under concurrent requests.
   */
  async lockUserMemberships(trx: Db, userId: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${MEMBERSHIP_LOCK_SPACE}, hashtext(${userId}))`.execute(trx);
  },

  /** Locks the guild row: role positions, member counts and ownership change one at a time. */
  async lockGuild(trx: Db, guildId: string): Promise<GuildRow | undefined> {
    return trx.selectFrom('guilds').selectAll().where('id', '=', guildId).forUpdate().executeTakeFirst();
  },

  guild(db: Db, guildId: string): Promise<GuildRow | undefined> {
    return db.selectFrom('guilds').selectAll().where('id', '=', guildId).executeTakeFirst();
  },

  async guildCountOf(db: Db, userId: string): Promise<number> {
    const { n } = await db
      .selectFrom('members')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(n);
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

  async guildIdsOf(db: Db, userId: string): Promise<string[]> {
    const rows = await db.selectFrom('members').select('guild_id').where('user_id', '=', userId).orderBy('guild_id').execute();
    return rows.map((r) => r.guild_id);
  },

  async mutualGuildIds(db: Db, a: string, b: string): Promise<string[]> {
    const rows = await db
      .selectFrom('members as x')
      .innerJoin('members as y', 'y.guild_id', 'x.guild_id')
      .select('x.guild_id')
      .where('x.user_id', '=', a)
      .where('y.user_id', '=', b)
      .orderBy('x.guild_id')
      .execute();
    return rows.map((r) => r.guild_id);
  },

  // Roles

  roles(db: Db, guildId: string): Promise<RoleRow[]> {
    return db.selectFrom('roles').selectAll().where('guild_id', '=', guildId).orderBy('position').orderBy('id').execute();
  },

  role(db: Db, guildId: string, roleId: string): Promise<RoleRow | undefined> {
    return db.selectFrom('roles').selectAll().where('guild_id', '=', guildId).where('id', '=', roleId).executeTakeFirst();
  },

  async insertRole(trx: Db, role: Insertable<RolesTable>): Promise<RoleRow> {
    return trx.insertInto('roles').values(role).returningAll().executeTakeFirstOrThrow();
  },

  async updateRole(trx: Db, roleId: string, changes: Updateable<RolesTable>): Promise<RoleRow> {
    return trx.updateTable('roles').set(changes).where('id', '=', roleId).returningAll().executeTakeFirstOrThrow();
  },

  async deleteRole(trx: Db, roleId: string): Promise<void> {
    await trx.deleteFrom('roles').where('id', '=', roleId).execute();
  },

  /** Makes room at `position` for a new role: every role from there up moves one higher. */
  async shiftRolesUp(trx: Db, guildId: string, from: number): Promise<void> {
    await trx
      .updateTable('roles')
      .set((eb) => ({ position: eb('position', '+', 1) }))
      .where('guild_id', '=', guildId)
      .where('position', '>=', from)
      .where('id', '!=', guildId)
      .execute();
  },

  // Members

  member(db: Db, guildId: string, userId: string): Promise<MemberRow | undefined> {
    return membersQuery(db, guildId).where('m.user_id', '=', userId).executeTakeFirst();
  },

  members(db: Db, guildId: string, after: string | null, limit: number): Promise<MemberRow[]> {
    let query = membersQuery(db, guildId);
    if (after) query = query.where(sql`m.user_id::bigint`, '>', after);
    return query
      .orderBy(sql`m.user_id::bigint`)
      .limit(limit)
      .execute();
  },

  async memberIds(db: Db, guildId: string, after: string | null, limit: number): Promise<string[]> {
    let query = db.selectFrom('members').select('user_id').where('guild_id', '=', guildId);
    if (after) query = query.where(sql`user_id::bigint`, '>', after);
    return (
      await query
        .orderBy(sql`user_id::bigint`)
        .limit(limit)
        .execute()
    ).map((r) => r.user_id);
  },

  async insertMember(trx: Db, member: Insertable<MembersTable>, roleIds: readonly string[]): Promise<void> {
    await trx.insertInto('members').values(member).execute();
    await this.addMemberRoles(trx, member.guild_id, member.user_id, roleIds);
    await trx
      .updateTable('guilds')
      .set((eb) => ({ member_count: eb('member_count', '+', 1) }))
      .where('id', '=', member.guild_id)
      .execute();
  },

  async deleteMember(trx: Db, guildId: string, userId: string): Promise<boolean> {
    const deleted = await trx.deleteFrom('members').where('guild_id', '=', guildId).where('user_id', '=', userId).executeTakeFirst();
    if (deleted.numDeletedRows === 0n) return false;
    await trx
      .updateTable('guilds')
      .set((eb) => ({ member_count: eb('member_count', '-', 1) }))
      .where('id', '=', guildId)
      .execute();
    return true;
  },

  async updateMember(trx: Db, guildId: string, userId: string, changes: Updateable<MembersTable>): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await trx.updateTable('members').set(changes).where('guild_id', '=', guildId).where('user_id', '=', userId).execute();
  },

  async addMemberRoles(trx: Db, guildId: string, userId: string, roleIds: readonly string[]): Promise<void> {
    if (roleIds.length === 0) return;
    await trx
      .insertInto('member_roles')
      .values(roleIds.map((role_id) => ({ guild_id: guildId, user_id: userId, role_id })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  async removeMemberRoles(trx: Db, guildId: string, userId: string, roleIds: readonly string[]): Promise<void> {
    if (roleIds.length === 0) return;
    await trx
      .deleteFrom('member_roles')
      .where('guild_id', '=', guildId)
      .where('user_id', '=', userId)
      .where('role_id', 'in', roleIds)
      .execute();
  },

  // Bans

  ban(db: Db, guildId: string, userId: string): Promise<BanRow | undefined> {
    return db.selectFrom('bans').selectAll().where('guild_id', '=', guildId).where('user_id', '=', userId).executeTakeFirst();
  },

  bans(db: Db, guildId: string, page: { before?: string; after?: string; limit: number }): Promise<BanRow[]> {
    let query = db.selectFrom('bans').selectAll().where('guild_id', '=', guildId);
    if (page.after) query = query.where(sql`user_id::bigint`, '>', page.after);
    if (page.before) query = query.where(sql`user_id::bigint`, '<', page.before);
    return query
      .orderBy(sql`user_id::bigint`)
      .limit(page.limit)
      .execute();
  },

  /** Records a ban; false when the user was already banned (the reason is left as it was). */
  async insertBan(trx: Db, ban: Insertable<BansTable>): Promise<boolean> {
    const inserted = await trx
      .insertInto('bans')
      .values(ban)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
  },

  async deleteBan(trx: Db, guildId: string, userId: string): Promise<boolean> {
    const deleted = await trx.deleteFrom('bans').where('guild_id', '=', guildId).where('user_id', '=', userId).executeTakeFirst();
    return deleted.numDeletedRows > 0n;
  },

  // Channels (read-only here: "chan" owns their changes)

  guildChannels(db: Db, guildId: string) {
    return db.selectFrom('channels').selectAll().where('guild_id', '=', guildId).orderBy('position').orderBy('id').execute();
  },

  /** Every overwrite of the guild's channels, by channel id. */
  async guildOverwrites(db: Db, guildId: string): Promise<Map<string, Overwrite[]>> {
    const rows = await db
      .selectFrom('permission_overwrites as o')
      .innerJoin('channels as c', 'c.id', 'o.channel_id')
      .select(['o.channel_id', 'o.target_id', 'o.type', 'o.allow', 'o.deny'])
      .where('c.guild_id', '=', guildId)
      .execute();
    const byChannel = new Map<string, Overwrite[]>();
    for (const o of rows) {
      const list = byChannel.get(o.channel_id) ?? [];
      list.push({ id: o.target_id, type: o.type, allow: BigInt(o.allow), deny: BigInt(o.deny) });
      byChannel.set(o.channel_id, list);
    }
    return byChannel;
  },

  /** The user's DMs and group DMs with every recipient id (the user included). */
  async privateChannelsOf(db: Db, userId: string) {
    const channels = await db
      .selectFrom('channels')
      .selectAll('channels')
      .innerJoin('channel_recipients as mine', 'mine.channel_id', 'channels.id')
      .where('mine.user_id', '=', userId)
      .where('channels.guild_id', 'is', null)
      .orderBy(sql`channels.id::bigint`, 'desc')
      .execute();
    if (channels.length === 0) return [];
    const recipients = await db
      .selectFrom('channel_recipients')
      .select(['channel_id', 'user_id'])
      .where(
        'channel_id',
        'in',
        channels.map((c) => c.id),
      )
      .execute();
    return channels.map((channel) => ({
      channel,
      recipientIds: recipients.filter((r) => r.channel_id === channel.id).map((r) => r.user_id),
    }));
  },
};
