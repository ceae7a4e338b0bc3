import type { DomainEvent } from '@kith/platform';
import type { ChannelService } from './channel.service.js';
import { renderMember, renderRole } from './guild.view.js';
import { MAX_ROLES } from './roles.service.js';
import type { GuildsStore, GuildsTx, IdSource, UserDirectory } from './ports.js';
import type { RoleRecord } from './records.js';
import { userOf } from './user.directory.js';

/** What a managed role is for: its permissions, and the bot or integration its tags name. */
export interface ManagedRoleOwner {
  permissions: bigint;
  botId: string | null;
  integrationId: string | null;
}

const NO_OWNER: ManagedRoleOwner = { permissions: 0n, botId: null, integrationId: null };

export type CreateManagedResult = { error: 0; role: RoleRecord } | { error: 10004 | 30005 };

/** The managed role's permissions become these, with GUILD_ROLE_UPDATE; undefined when they already were. */
async function withPermissions(tx: GuildsTx, guildId: string, role: RoleRecord, permissions: bigint): Promise<RoleRecord | undefined> {
  if (BigInt(role.permissions) === permissions) return undefined;
  const updated = await tx.roles.update(role.id, { permissions });
  await tx.emit([{ name: 'GUILD_ROLE_UPDATE', audience: { guilds: [guildId] }, data: { guild_id: guildId, role: renderRole(updated) } }]);
  return updated;
}

/**
 * Roles an integration owns (a streaming integration's subscriber role): made, given, taken and
 * deleted by the integrations service on its members' behalf, never by a member's hand.
 */
export class ManagedRolesService {
  constructor(
    private readonly store: GuildsStore,
    private readonly ids: IdSource,
    private readonly channels: ChannelService,
    private readonly users: UserDirectory,
  ) {}

  /**
   * Just above `@everyone`, with the owner's permissions (none for subscribers); the other roles
   * move up one. One per bot and per integration: asked again for the same owner, the role it has
   * (with these permissions).
   */
  async create(guildId: string, name: string, owner: ManagedRoleOwner = NO_OWNER): Promise<CreateManagedResult> {
    return this.store.transaction(async (tx) => {
      if (!(await tx.guilds.lock(guildId))) return { error: 10004 };
      const roles = await tx.roles.list(guildId);
      // A retried create (a deadline that passed after this committed) gets the role it made.
      const same = roles.find(
        (r) =>
          r.managed &&
          ((owner.botId !== null && r.bot_id === owner.botId) ||
            (owner.integrationId !== null && r.integration_id === owner.integrationId)),
      );
      if (same) return { error: 0, role: (await withPermissions(tx, guildId, same, owner.permissions)) ?? same };
      if (roles.length >= MAX_ROLES) return { error: 30005 };
      await tx.roles.shiftUp(guildId, 1);
      const role = await tx.roles.insert({
        id: this.ids.next(),
        guild_id: guildId,
        name,
        permissions: owner.permissions,
        position: 1,
        managed: true,
        bot_id: owner.botId,
        integration_id: owner.integrationId,
      });
      const events: DomainEvent[] = [
        { name: 'GUILD_ROLE_CREATE', audience: { guilds: [guildId] }, data: { guild_id: guildId, role: renderRole(role) } },
        ...roles
          .filter((r) => r.id !== guildId)
          .map((moved) => ({
            name: 'GUILD_ROLE_UPDATE',
            audience: { guilds: [guildId] },
            data: { guild_id: guildId, role: renderRole({ ...moved, position: moved.position + 1 }) },
          })),
      ];
      await tx.emit(events);
      return { error: 0, role };
    });
  }

  /** The managed role's permissions become these; GUILD_ROLE_UPDATE when they changed. */
  async setPermissions(guildId: string, roleId: string, permissions: bigint): Promise<{ found: boolean; changed: boolean }> {
    return this.store.transaction(async (tx) => {
      if (!(await tx.guilds.lock(guildId))) return { found: false, changed: false };
      const role = await tx.roles.get(guildId, roleId);
      if (!role?.managed) return { found: false, changed: false };
      return { found: true, changed: (await withPermissions(tx, guildId, role, permissions)) !== undefined };
    });
  }

  async delete(guildId: string, roleId: string): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      if (!(await tx.guilds.lock(guildId))) return false;
      const role = await tx.roles.get(guildId, roleId);
      if (!role?.managed) return false;
      await this.channels.dropRoleOverwrites(tx, guildId, roleId);
      await tx.roles.delete(roleId);
      await tx.emit([{ name: 'GUILD_ROLE_DELETE', audience: { guilds: [guildId] }, data: { guild_id: guildId, role_id: roleId } }]);
      return true;
    });
  }

  /** Gives or takes the managed role; GUILD_MEMBER_UPDATE when the member's roles changed. */
  async set(guildId: string, userId: string, roleId: string, present: boolean): Promise<{ member: boolean; changed: boolean }> {
    const user = await userOf(this.users, userId);
    return this.store.transaction(async (tx) => {
      if (!(await tx.guilds.lock(guildId))) return { member: false, changed: false };
      const role = await tx.roles.get(guildId, roleId);
      const member = await tx.members.get(guildId, userId);
      if (!member) return { member: false, changed: false };
      if (!role?.managed || member.role_ids.includes(roleId) === present) return { member: true, changed: false };
      if (present) await tx.members.addRoles(guildId, userId, [roleId]);
      else await tx.members.removeRoles(guildId, userId, [roleId]);
      const body = renderMember((await tx.members.get(guildId, userId))!, user);
      await tx.emit([{ name: 'GUILD_MEMBER_UPDATE', audience: { guilds: [guildId] }, data: { ...body, guild_id: guildId } }]);
      return { member: true, changed: true };
    });
  }
}
