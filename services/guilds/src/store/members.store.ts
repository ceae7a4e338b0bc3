import { sql } from '@kith/platform';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from './guilds.store.js';
import type { BansTable, MembersTable } from './schema.js';

export type MemberRow = Selectable<MembersTable> & { role_ids: string[] };
export type BanRow = Selectable<BansTable>;

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

/** The SQL of members, their roles and bans. */
export const membersStore = {
  /**
   * Serialises every join, leave and create of one user (transaction-scoped), so the 100-guild cap
   * holds under concurrent requests.
   */
  async lockUserMemberships(trx: Db, userId: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${MEMBERSHIP_LOCK_SPACE}, hashtext(${userId}))`.execute(trx);
  },

  async guildCountOf(db: Db, userId: string): Promise<number> {
    const { n } = await db
      .selectFrom('members')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(n);
  },

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
};
