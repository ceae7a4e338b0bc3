import type { Insertable, Selectable, Updateable } from 'kysely';
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
