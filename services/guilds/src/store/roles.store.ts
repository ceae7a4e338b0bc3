import { sql } from 'kysely';
import type { RoleRepository } from '../domain/ports.js';
import type { NewRole, RoleColumns, RoleRecord } from '../domain/records.js';
import type { Db } from './guilds.store.js';

/** The SQL of roles. */
export class PgRoles implements RoleRepository {
  constructor(private readonly db: Db) {}

  list(guildId: string): Promise<RoleRecord[]> {
    return this.db.selectFrom('roles').selectAll().where('guild_id', '=', guildId).orderBy('position').orderBy('id').execute();
  }

  get(guildId: string, roleId: string): Promise<RoleRecord | undefined> {
    return this.db.selectFrom('roles').selectAll().where('guild_id', '=', guildId).where('id', '=', roleId).executeTakeFirst();
  }

  insert(role: NewRole): Promise<RoleRecord> {
    return this.db.insertInto('roles').values(role).returningAll().executeTakeFirstOrThrow();
  }

  update(roleId: string, changes: RoleColumns): Promise<RoleRecord> {
    return this.db.updateTable('roles').set(changes).where('id', '=', roleId).returningAll().executeTakeFirstOrThrow();
  }

  /** One statement for all the moves: a reorder is one round trip, not one per role. */
  async setPositions(guildId: string, moves: readonly { id: string; position: number }[]): Promise<Map<string, RoleRecord>> {
    if (moves.length === 0) return new Map();
    const values = sql.join(moves.map((m) => sql`(${m.id}::bigint, ${m.position}::int)`));
    const { rows } = await sql<RoleRecord>`
      UPDATE roles SET position = moves.position FROM (VALUES ${values}) AS moves(id, position)
      WHERE roles.id = moves.id AND roles.guild_id = ${guildId} RETURNING roles.*`.execute(this.db);
    return new Map(rows.map((r) => [r.id, r]));
  }

  async share(roleIds: readonly string[]): Promise<void> {
    await this.db
      .selectFrom('roles')
      .select('id')
      .where('id', 'in', [...roleIds])
      .forKeyShare()
      .execute();
  }

  async delete(roleId: string): Promise<void> {
    await this.db.deleteFrom('roles').where('id', '=', roleId).execute();
  }

  async shiftUp(guildId: string, from: number): Promise<void> {
    await this.db
      .updateTable('roles')
      .set((eb) => ({ position: eb('position', '+', 1) }))
      .where('guild_id', '=', guildId)
      .where('position', '>=', from)
      .where('id', '!=', guildId)
      .execute();
  }
}
