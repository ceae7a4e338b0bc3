import { sql, type Kysely } from '@kith/platform';
import type { Transaction } from 'kysely';
import type { GuildRepository } from '../domain/ports.js';
import type { GuildColumns, GuildRecord, IdPage, MutualGuild, NewGuild } from '../domain/records.js';
import { MEMBERSHIP_LOCK_SPACE } from './members.store.js';
import type { GuildsDatabase } from './schema.js';

/** A database handle or an open transaction: every statement below works in either. */
export type Db = Kysely<GuildsDatabase>;
export type Tx = Transaction<GuildsDatabase>;

/** A guild's member count: the sum of its counter slots (see members.store.ts). */
const memberCountOfRow = sql<number>`(SELECT coalesce(sum(c.n), 0)::int FROM guild_member_counts c WHERE c.guild_id = guilds.id)`;
const memberCount = memberCountOfRow.as('member_count');

/** The SQL of guilds. */
export class PgGuilds implements GuildRepository {
  constructor(private readonly db: Db) {}

  /**
   * FOR NO KEY UPDATE (what an UPDATE of the row takes, the permission-version triggers included)
   * still serialises every locker, but lets inserts that merely reference the guild (their
   * foreign-key check takes KEY SHARE) go on meanwhile.
   */
  lock(guildId: string): Promise<GuildRecord | undefined> {
    return this.db.selectFrom('guilds').selectAll().select(memberCount).where('id', '=', guildId).forNoKeyUpdate().executeTakeFirst();
  }

  /**
   * FOR KEY SHARE: the guild cannot be deleted until the transaction ends, while edits, role
   * changes and other joins go on (joins to one guild no longer take turns).
   */
  async share(guildId: string, lockingUser?: string): Promise<GuildRecord | undefined> {
    if (lockingUser === undefined)
      return this.db.selectFrom('guilds').selectAll().select(memberCount).where('id', '=', guildId).forKeyShare().executeTakeFirst();
    // The lock first (the outer side of the lateral join), then the guild row: one round trip
    // instead of two. The reads that need the lock (the user's guild count) come in later statements.
    const { rows } = await sql<GuildRecord>`
      SELECT g.* FROM (SELECT pg_advisory_xact_lock(${MEMBERSHIP_LOCK_SPACE}, hashtext(${lockingUser}))) AS l
      LEFT JOIN LATERAL (
        SELECT guilds.*, ${memberCountOfRow} AS member_count
        FROM guilds WHERE id = ${guildId} FOR KEY SHARE
      ) AS g ON true`.execute(this.db);
    const row = rows[0];
    return row && row.id !== null ? row : undefined;
  }

  get(guildId: string): Promise<GuildRecord | undefined> {
    return this.db.selectFrom('guilds').selectAll().select(memberCount).where('id', '=', guildId).executeTakeFirst();
  }

  async insert(guild: NewGuild): Promise<void> {
    await this.db.insertInto('guilds').values(guild).execute();
  }

  update(guildId: string, changes: GuildColumns): Promise<GuildRecord> {
    return this.db
      .updateTable('guilds')
      .set(changes)
      .where('id', '=', guildId)
      .returningAll()
      .returning(memberCount)
      .executeTakeFirstOrThrow();
  }

  setFeatures(guildId: string, features: readonly string[]): Promise<GuildRecord> {
    return this.db
      .updateTable('guilds')
      .set({ features: [...features] })
      .where('id', '=', guildId)
      .returningAll()
      .returning(memberCount)
      .executeTakeFirstOrThrow();
  }

  async delete(guildId: string): Promise<void> {
    await this.db.deleteFrom('guilds').where('id', '=', guildId).execute();
  }

  async listOf(userId: string, page: IdPage): Promise<GuildRecord[]> {
    let query = this.db
      .selectFrom('guilds')
      .selectAll('guilds')
      .select(memberCount)
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
  }

  async rolesAndMemberRoles(guildIds: readonly string[], userId: string) {
    if (guildIds.length === 0) return { roles: [], memberRoles: [] };
    const [roles, memberRoles] = await Promise.all([
      this.db.selectFrom('roles').select(['id', 'guild_id', 'permissions']).where('guild_id', 'in', guildIds).execute(),
      this.db
        .selectFrom('member_roles')
        .select(['guild_id', 'role_id'])
        .where('user_id', '=', userId)
        .where('guild_id', 'in', guildIds)
        .execute(),
    ]);
    return { roles, memberRoles };
  }

  async idsOf(userId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('members').select('guild_id').where('user_id', '=', userId).orderBy('guild_id').execute();
    return rows.map((r) => r.guild_id);
  }

  async mutual(a: string, b: string): Promise<MutualGuild[]> {
    const rows = await this.db
      .selectFrom('members as x')
      .innerJoin('members as y', 'y.guild_id', 'x.guild_id')
      .innerJoin('guilds', 'guilds.id', 'x.guild_id')
      .select(['x.guild_id', memberCount, 'y.nick'])
      .where('x.user_id', '=', a)
      .where('y.user_id', '=', b)
      .orderBy('x.guild_id')
      .execute();
    return rows.map((r) => ({ id: r.guild_id, memberCount: r.member_count, nick: r.nick }));
  }
}
