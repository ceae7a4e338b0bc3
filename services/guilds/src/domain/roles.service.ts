import { ApiError, type DomainEvent } from '@kith/platform';
import { compareIds } from './channel.audience.js';
import type { ChannelService } from './channel.service.js';
import { guildErrors } from './guild.errors.js';
import { actorIn, requireAbove, requireGrantable, requirePermission, type Actor } from './guild.guard.js';
import { renderRole } from './guild.view.js';
import { imageHash } from './image.hash.js';
import { Permission } from './permissions.js';
import type { GuildsStore, GuildsTx, IdSource } from './ports.js';
import type { RoleColumns } from './records.js';

/** The platform's cap on roles per guild (`@everyone` included). */
export const MAX_ROLES = 250;

export interface RoleSettings {
  name?: string;
  permissions?: bigint;
  color?: number;
  hoist?: boolean;
  icon?: string | null;
  unicode_emoji?: string | null;
  mentionable?: boolean;
}

/** Roles: MANAGE_ROLES, within the role hierarchy, never granting what the actor lacks. */
export class RolesService {
  constructor(
    private readonly store: GuildsStore,
    private readonly ids: IdSource,
    private readonly channels: ChannelService,
  ) {}

  async list(userId: string, guildId: string) {
    return (await actorIn(this.store, guildId, userId)).roles.map(renderRole);
  }

  async get(userId: string, guildId: string, roleId: string) {
    const role = (await actorIn(this.store, guildId, userId)).roles.find((r) => r.id === roleId);
    if (!role) throw guildErrors.unknownRole();
    return renderRole(role);
  }

  /** A new role sits just above `@everyone` (position 1); the others move up one. */
  async create(userId: string, guildId: string, settings: RoleSettings) {
    return this.inGuild(userId, guildId, async (tx, actor) => {
      // Without permissions a new role gets what `@everyone` has.
      const everyone = actor.roles.find((r) => r.id === guildId);
      const permissions = settings.permissions ?? BigInt(everyone?.permissions ?? '0');
      requireGrantable(actor, permissions);
      if (actor.roles.length >= MAX_ROLES) throw guildErrors.maxRoles();
      await tx.roles.shiftUp(guildId, 1);
      const role = await tx.roles.insert({
        id: this.ids.next(),
        guild_id: guildId,
        name: settings.name ?? 'new role',
        permissions,
        color: settings.color ?? 0,
        hoist: settings.hoist ?? false,
        icon: imageHash(settings.icon ?? null),
        unicode_emoji: settings.unicode_emoji ?? null,
        mentionable: settings.mentionable ?? false,
        position: 1,
      });
      const events: DomainEvent[] = [
        { name: 'GUILD_ROLE_CREATE', audience: { guilds: [guildId] }, data: { guild_id: guildId, role: renderRole(role) } },
      ];
      // The roles that moved up tell their new positions too.
      for (const moved of actor.roles.filter((r) => r.id !== guildId)) {
        events.push({
          name: 'GUILD_ROLE_UPDATE',
          audience: { guilds: [guildId] },
          data: { guild_id: guildId, role: renderRole({ ...moved, position: moved.position + 1 }) },
        });
      }
      await tx.emit(events);
      return renderRole(role);
    });
  }

  async update(userId: string, guildId: string, roleId: string, settings: RoleSettings) {
    return this.inGuild(userId, guildId, async (tx, actor) => {
      const role = actor.roles.find((r) => r.id === roleId);
      if (!role) throw guildErrors.unknownRole();
      // `@everyone` is below everyone: any MANAGE_ROLES member may edit it, within what they have.
      if (role.id !== guildId) requireAbove(actor, role.position);
      if (settings.permissions !== undefined) requireGrantable(actor, settings.permissions & ~BigInt(role.permissions));
      if (role.id === guildId && settings.name !== undefined && settings.name !== role.name) {
        throw ApiError.form({ name: { code: 'BASE_TYPE_INVALID', message: 'The @everyone role cannot be renamed.' } });
      }
      const { icon, ...rest } = settings;
      const changes: RoleColumns = { ...rest, ...(icon !== undefined ? { icon: imageHash(icon) } : {}) };
      const updated = Object.keys(changes).length > 0 ? await tx.roles.update(roleId, changes) : role;
      const body = renderRole(updated);
      await tx.emit([{ name: 'GUILD_ROLE_UPDATE', audience: { guilds: [guildId] }, data: { guild_id: guildId, role: body } }]);
      return body;
    });
  }

  async delete(userId: string, guildId: string, roleId: string): Promise<void> {
    await this.inGuild(userId, guildId, async (tx, actor) => {
      const role = actor.roles.find((r) => r.id === roleId);
      if (!role) throw guildErrors.unknownRole();
      if (role.id === guildId)
        throw ApiError.form({ role_id: { code: 'BASE_TYPE_INVALID', message: 'The @everyone role cannot be deleted.' } });
      requireAbove(actor, role.position);
      await this.channels.dropRoleOverwrites(tx, guildId, roleId);
      await tx.roles.delete(roleId);
      await tx.emit([{ name: 'GUILD_ROLE_DELETE', audience: { guilds: [guildId] }, data: { guild_id: guildId, role_id: roleId } }]);
    });
  }

  /**
   * PATCH /guilds/{id}/roles: new positions. Only roles below the actor's highest move, and only to
   * places below it; `@everyone` stays at 0. Answers every role in position order.
   */
  async reorder(userId: string, guildId: string, moves: { id: string; position?: number | null }[]) {
    return this.inGuild(userId, guildId, async (tx, actor) => {
      // A role named twice moves to its last position, once.
      const targets = new Map<string, number>();
      for (const move of moves) {
        const role = actor.roles.find((r) => r.id === move.id);
        if (!role) throw guildErrors.unknownRole();
        if (move.position === undefined || move.position === null || role.id === guildId || move.position === role.position) continue;
        requireAbove(actor, role.position);
        requireAbove(actor, move.position);
        targets.delete(role.id);
        targets.set(role.id, Math.max(1, move.position));
      }
      const updated = await tx.roles.setPositions(
        guildId,
        [...targets].map(([id, position]) => ({ id, position })),
      );
      const events: DomainEvent[] = [...targets.keys()].map((id) => ({
        name: 'GUILD_ROLE_UPDATE',
        audience: { guilds: [guildId] },
        data: { guild_id: guildId, role: renderRole(updated.get(id)!) },
      }));
      await tx.emit(events);
      // The actor's roles were read under the guild lock every role change takes: with the moved
      // ones replaced they are the guild's roles now, in the order the list query gives.
      return actor.roles
        .map((role) => updated.get(role.id) ?? role)
        .sort((a, b) => a.position - b.position || compareIds(a.id, b.id))
        .map(renderRole);
    });
  }

  /** A role change: the guild row locked (counts and positions), the actor with MANAGE_ROLES. */
  private inGuild<T>(userId: string, guildId: string, fn: (tx: GuildsTx, actor: Actor) => Promise<T>): Promise<T> {
    return this.store.transaction(async (tx) => {
      if (!(await tx.guilds.lock(guildId))) throw ApiError.of('UNKNOWN_GUILD');
      const actor = await actorIn(tx, guildId, userId);
      requirePermission(actor, Permission.MANAGE_ROLES);
      return fn(tx, actor);
    });
  }
}
