import { ApiError, userView, type ContractUser } from '@kith/platform';
import { guildErrors } from './guild.errors.js';
import { actorIn, requireAbove, requireOutranks, requirePermission, type Actor } from './guild.guard.js';
import { renderBan, renderMember } from './guild.view.js';
import { memberColumns, type MemberChanges } from './member.rules.js';
import type { MembershipService } from './membership.service.js';
import { Permission } from './permissions.js';
import type { GuildsStore, GuildsTx, UserDirectory } from './ports.js';
import type { IdPage, MemberRecord } from './records.js';
import { userOf } from './user.directory.js';

/** Members, their roles and bans: permission and hierarchy checks, then one transaction each. */
export class MembersService {
  constructor(
    private readonly store: GuildsStore,
    private readonly users: UserDirectory,
    private readonly membership: MembershipService,
  ) {}

  async list(userId: string, guildId: string, after: string | null, limit: number) {
    await actorIn(this.store, guildId, userId);
    const members = await this.store.members.list(guildId, after, limit);
    const users = await this.users.users(members.map((m) => m.user_id));
    return members.map((m) => renderMember(m, users.get(m.user_id)));
  }

  async get(userId: string, guildId: string, targetId: string) {
    await actorIn(this.store, guildId, userId);
    const member = await this.store.members.get(guildId, targetId);
    if (!member) throw guildErrors.unknownMember();
    return renderMember(member, await this.userOf(targetId));
  }

  /** PATCH a member: member.rules.ts decides what the actor may change; roles are set with rank checks. */
  async update(userId: string, guildId: string, targetId: string, changes: MemberChanges) {
    const user = await this.userOf(targetId);
    return this.inGuild(userId, guildId, async (tx, actor) => {
      const member = await tx.members.get(guildId, targetId);
      if (!member) throw guildErrors.unknownMember();
      const columns = memberColumns(actor, member, changes);
      await tx.members.update(guildId, targetId, columns);
      const rolesChanged = changes.roles !== undefined && (await this.setRoles(tx, actor, member, changes.roles));
      if (Object.keys(columns).length === 0 && !rolesChanged) return renderMember(member, user);
      return this.emitUpdate(tx, guildId, targetId, user);
    });
  }

  /** PUT a role on a member; already having it is not an error. */
  async addRole(userId: string, guildId: string, targetId: string, roleId: string): Promise<void> {
    await this.changeRole(userId, guildId, targetId, roleId, (ids) => [...ids, roleId]);
  }

  /** DELETE a role from a member; not having it is not an error. */
  async removeRole(userId: string, guildId: string, targetId: string, roleId: string): Promise<void> {
    await this.changeRole(userId, guildId, targetId, roleId, (ids) => ids.filter((id) => id !== roleId));
  }

  /** Permission, role and rank are checked whether or not the change turns out to be a no-op. */
  private async changeRole(userId: string, guildId: string, targetId: string, roleId: string, next: (ids: string[]) => string[]) {
    const user = await this.userOf(targetId);
    await this.inGuild(userId, guildId, async (tx, actor) => {
      requirePermission(actor, Permission.MANAGE_ROLES);
      const role = actor.roles.find((r) => r.id === roleId);
      if (!role || role.id === guildId) throw guildErrors.unknownRole();
      requireAbove(actor, role.position);
      const member = await tx.members.get(guildId, targetId);
      if (!member) throw guildErrors.unknownMember();
      if (await this.setRoles(tx, actor, member, [...new Set(next(member.role_ids))])) await this.emitUpdate(tx, guildId, targetId, user);
    });
  }

  /** KICK_MEMBERS and rank over the member; never the owner. */
  async kick(userId: string, guildId: string, targetId: string): Promise<void> {
    const user = await this.userOf(targetId);
    await this.inGuild(
      userId,
      guildId,
      async (tx, actor) => {
        requirePermission(actor, Permission.KICK_MEMBERS);
        const member = await tx.members.get(guildId, targetId);
        if (!member) throw guildErrors.unknownMember();
        requireOutranks(actor, targetId, member.role_ids);
        await this.membership.remove(tx, guildId, targetId, user);
      },
      targetId,
    );
  }

  // Bans

  async bans(userId: string, guildId: string, page: IdPage) {
    const actor = await actorIn(this.store, guildId, userId);
    requirePermission(actor, Permission.BAN_MEMBERS);
    const bans = await this.store.members.bans(guildId, page);
    const users = await this.users.users(bans.map((b) => b.user_id));
    return bans.map((b) => renderBan(b, users.get(b.user_id)));
  }

  async ban(userId: string, guildId: string, targetId: string) {
    const actor = await actorIn(this.store, guildId, userId);
    requirePermission(actor, Permission.BAN_MEMBERS);
    const ban = await this.store.members.ban(guildId, targetId);
    if (!ban) throw guildErrors.unknownBan();
    return renderBan(ban, await this.userOf(targetId));
  }

  /** BAN_MEMBERS, rank over the user if they are a member; banning removes them. */
  async putBan(userId: string, guildId: string, targetId: string, reason: string | null): Promise<void> {
    const user = await this.userOf(targetId);
    if (!user) throw ApiError.of('UNKNOWN_USER');
    await this.inGuild(
      userId,
      guildId,
      async (tx, actor) => {
        requirePermission(actor, Permission.BAN_MEMBERS);
        const member = await tx.members.get(guildId, targetId);
        if (targetId === actor.ownerId || targetId === userId) throw ApiError.of('MISSING_PERMISSIONS');
        if (member) requireOutranks(actor, targetId, member.role_ids);
        if (!(await tx.members.insertBan({ guild_id: guildId, user_id: targetId, reason }))) return;
        if (member) await this.membership.remove(tx, guildId, targetId, user);
        await this.membership.guests.endIn(tx, { guildId, userId: targetId });
        await tx.emit([
          { name: 'GUILD_BAN_ADD', audience: { guilds: [guildId] }, data: { guild_id: guildId, user: userView(targetId, user) } },
        ]);
      },
      targetId,
    );
  }

  async deleteBan(userId: string, guildId: string, targetId: string): Promise<void> {
    const user = await this.userOf(targetId);
    await this.inGuild(userId, guildId, async (tx, actor) => {
      requirePermission(actor, Permission.BAN_MEMBERS);
      if (!(await tx.members.deleteBan(guildId, targetId))) throw guildErrors.unknownBan();
      await tx.emit([
        { name: 'GUILD_BAN_REMOVE', audience: { guilds: [guildId] }, data: { guild_id: guildId, user: userView(targetId, user) } },
      ]);
    });
  }

  /** Sets a member's roles to `wanted`: each one added or removed must be a guild role below the actor. */
  private async setRoles(tx: GuildsTx, actor: Actor, member: MemberRecord, wanted: readonly string[]): Promise<boolean> {
    requirePermission(actor, Permission.MANAGE_ROLES);
    const byId = new Map(actor.roles.map((r) => [r.id, r]));
    const target = new Set(wanted.filter((id) => id !== actor.guildId));
    for (const id of target) if (!byId.has(id)) throw guildErrors.unknownRole();
    const current = new Set(member.role_ids);
    const added = [...target].filter((id) => !current.has(id));
    const removed = [...current].filter((id) => !target.has(id));
    for (const id of [...added, ...removed]) {
      const role = byId.get(id)!;
      requireAbove(actor, role.position);
      if (role.managed) throw ApiError.of('MISSING_PERMISSIONS');
    }
    await tx.members.addRoles(actor.guildId, member.user_id, added);
    await tx.members.removeRoles(actor.guildId, member.user_id, removed);
    return added.length + removed.length > 0;
  }

  /** Announces the member as they now are; `user` is fetched before the transaction, not while it holds locks. */
  private async emitUpdate(tx: GuildsTx, guildId: string, targetId: string, user: ContractUser | undefined) {
    const body = renderMember((await tx.members.get(guildId, targetId))!, user);
    await tx.emit([{ name: 'GUILD_MEMBER_UPDATE', audience: { guilds: [guildId] }, data: { ...body, guild_id: guildId } }]);
    return body;
  }

  private userOf(userId: string): Promise<ContractUser | undefined> {
    return userOf(this.users, userId);
  }

  /**
   * One change in a guild, its row locked. Changes that remove a member (kick, ban) name them in
   * `removing`: their membership lock is taken first, in the order joins take them (user, then
   * guild), so a join racing the removal waits instead of deadlocking.
   */
  private inGuild<T>(userId: string, guildId: string, fn: (tx: GuildsTx, actor: Actor) => Promise<T>, removing?: string): Promise<T> {
    return this.store.transaction(async (tx) => {
      if (removing) await tx.members.lockUser(removing);
      if (!(await tx.guilds.lock(guildId))) throw ApiError.of('UNKNOWN_GUILD');
      return fn(tx, await actorIn(tx, guildId, userId));
    });
  }
}
