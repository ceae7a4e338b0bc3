import { sql } from '@kith/platform';
import type { MemberRepository } from '../domain/ports.js';
import type { BanRecord, IdPage, MemberColumns, MemberRecord, NewMember } from '../domain/records.js';
import type { Db } from './guilds.store.js';

/** Arbitrary constant naming "a user's guild memberships" among this database's advisory locks. */
export const MEMBERSHIP_LOCK_SPACE = 7_340_501;
/** Counter rows per guild: joins that land on different slots never wait for each other. */
const COUNT_SLOTS = 16;
const anySlot = () => Math.floor(Math.random() * COUNT_SLOTS);
const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

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
export class PgMembers implements MemberRepository {
  constructor(private readonly db: Db) {}

  async lockUser(userId: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${MEMBERSHIP_LOCK_SPACE}, hashtext(${userId}))`.execute(this.db);
  }

  async countGuildsOf(userId: string): Promise<number> {
    const { n } = await this.db
      .selectFrom('members')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  async temporaryGuildsOf(userId: string): Promise<string[]> {
    const rows = await sql<{ guild_id: string }>`
      SELECT m.guild_id FROM members m JOIN guilds g ON g.id = m.guild_id
      WHERE m.user_id = ${userId} AND m.temporary AND g.owner_id <> m.user_id
        AND NOT EXISTS (SELECT 1 FROM member_roles r WHERE r.guild_id = m.guild_id AND r.user_id = m.user_id)
      ORDER BY m.guild_id`.execute(this.db);
    return rows.rows.map((r) => r.guild_id);
  }

  /** One round trip: the member row (nulls when none) beside the ban and the user's guild count. */
  async standing(guildId: string, userId: string) {
    const { rows } = await sql<MemberRecord & { banned: boolean; guild_count: number }>`
      SELECT m.*,
             coalesce((SELECT array_agg(r.role_id ORDER BY r.role_id) FROM member_roles r
               WHERE r.guild_id = m.guild_id AND r.user_id = m.user_id), '{}') AS role_ids,
             EXISTS (SELECT 1 FROM bans WHERE guild_id = ${guildId} AND user_id = ${userId}) AS banned,
             (SELECT count(*)::int FROM members WHERE user_id = ${userId}) AS guild_count
      FROM (SELECT 1) AS one LEFT JOIN members m ON m.guild_id = ${guildId} AND m.user_id = ${userId}`.execute(this.db);
    const { banned, guild_count: guildCount, ...member } = rows[0]!;
    return { member: member.user_id ? (member as MemberRecord) : undefined, banned, guildCount };
  }

  get(guildId: string, userId: string): Promise<MemberRecord | undefined> {
    return membersQuery(this.db, guildId).where('m.user_id', '=', userId).executeTakeFirst();
  }

  list(guildId: string, after: string | null, limit: number): Promise<MemberRecord[]> {
    let query = membersQuery(this.db, guildId);
    if (after) query = query.where(sql`m.user_id::bigint`, '>', after);
    return query
      .orderBy(sql`m.user_id::bigint`)
      .limit(limit)
      .execute();
  }

  byIds(guildId: string, userIds: readonly string[]): Promise<MemberRecord[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return membersQuery(this.db, guildId)
      .where('m.user_id', 'in', [...userIds])
      .orderBy(sql`m.user_id::bigint`)
      .execute();
  }

  async ids(guildId: string, after: string | null, limit: number): Promise<string[]> {
    let query = this.db.selectFrom('members').select('user_id').where('guild_id', '=', guildId);
    if (after) query = query.where(sql`user_id::bigint`, '>', after);
    const rows = await query
      .orderBy(sql`user_id::bigint`)
      .limit(limit)
      .execute();
    return rows.map((r) => r.user_id);
  }

  /** One statement (one round trip): the member, their roles, and one count slot's +1. */
  async insert(member: NewMember, roleIds: readonly string[]): Promise<MemberRecord> {
    const { rows } = await sql<Omit<MemberRecord, 'role_ids'>>`
      WITH m AS (
        INSERT INTO members (guild_id, user_id, temporary, flags, pending)
        VALUES (${member.guild_id}, ${member.user_id}, ${member.temporary ?? false}, ${member.flags ?? 0}, ${member.pending ?? false})
        RETURNING *
      ), r AS (
        INSERT INTO member_roles (guild_id, user_id, role_id)
        SELECT ${member.guild_id}, ${member.user_id}, unnest(${[...roleIds]}::bigint[])
        ON CONFLICT DO NOTHING
      ), c AS (
        INSERT INTO guild_member_counts (guild_id, slot, n) VALUES (${member.guild_id}, ${anySlot()}, 1)
        ON CONFLICT (guild_id, slot) DO UPDATE SET n = guild_member_counts.n + 1
      )
      SELECT * FROM m`.execute(this.db);
    return { ...rows[0]!, role_ids: [...new Set(roleIds)].sort(byId) };
  }

  /** One statement: the member (their roles go with them) and one count slot's -1. */
  async delete(guildId: string, userId: string): Promise<boolean> {
    const { rows } = await sql<{ n: number }>`
      WITH d AS (
        DELETE FROM members WHERE guild_id = ${guildId} AND user_id = ${userId} RETURNING guild_id
      ), c AS (
        INSERT INTO guild_member_counts (guild_id, slot, n) SELECT guild_id, ${anySlot()}, -1 FROM d
        ON CONFLICT (guild_id, slot) DO UPDATE SET n = guild_member_counts.n - 1
      )
      SELECT count(*)::int AS n FROM d`.execute(this.db);
    return rows[0]!.n > 0;
  }

  async update(guildId: string, userId: string, changes: MemberColumns): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await this.db.updateTable('members').set(changes).where('guild_id', '=', guildId).where('user_id', '=', userId).execute();
  }

  async addRoles(guildId: string, userId: string, roleIds: readonly string[]): Promise<void> {
    if (roleIds.length === 0) return;
    await this.db
      .insertInto('member_roles')
      .values(roleIds.map((role_id) => ({ guild_id: guildId, user_id: userId, role_id })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async removeRoles(guildId: string, userId: string, roleIds: readonly string[]): Promise<void> {
    if (roleIds.length === 0) return;
    await this.db
      .deleteFrom('member_roles')
      .where('guild_id', '=', guildId)
      .where('user_id', '=', userId)
      .where('role_id', 'in', roleIds)
      .execute();
  }

  ban(guildId: string, userId: string): Promise<BanRecord | undefined> {
    return this.db.selectFrom('bans').selectAll().where('guild_id', '=', guildId).where('user_id', '=', userId).executeTakeFirst();
  }

  bans(guildId: string, page: IdPage): Promise<BanRecord[]> {
    let query = this.db.selectFrom('bans').selectAll().where('guild_id', '=', guildId);
    if (page.after) query = query.where(sql`user_id::bigint`, '>', page.after);
    if (page.before) query = query.where(sql`user_id::bigint`, '<', page.before);
    return query
      .orderBy(sql`user_id::bigint`)
      .limit(page.limit)
      .execute();
  }

  async insertBan(ban: Pick<BanRecord, 'guild_id' | 'user_id' | 'reason'>): Promise<boolean> {
    const inserted = await this.db
      .insertInto('bans')
      .values(ban)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async deleteBan(guildId: string, userId: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('bans').where('guild_id', '=', guildId).where('user_id', '=', userId).executeTakeFirst();
    return deleted.numDeletedRows > 0n;
  }
}
