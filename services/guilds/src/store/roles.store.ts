import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from './guilds.store.js';
import type { RolesTable } from './schema.js';

export type RoleRow = Selectable<RolesTable>;

/** The SQL of roles. */
export const rolesStore = {
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

  /**
   * Moves several roles of one guild in one statement (a reorder is one round trip, not one per
   * role); answers the updated rows by id. Ids must be distinct.
   */
  async setPositions(trx: Db, guildId: string, moves: readonly { id: string; position: number }[]): Promise<Map<string, RoleRow>> {
    if (moves.length === 0) return new Map();
    const values = sql.join(moves.map((m) => sql`(${m.id}::bigint, ${m.position}::int)`));
    const { rows } = await sql<RoleRow>`
      UPDATE roles SET position = moves.position FROM (VALUES ${values}) AS moves(id, position)
      WHERE roles.id = moves.id AND roles.guild_id = ${guildId} RETURNING roles.*`.execute(trx);
    return new Map(rows.map((r) => [r.id, r]));
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
};
