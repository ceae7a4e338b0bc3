import { ApiError, userView, type ContractUser } from '@kith/platform';
import { guildsStore, type Tx } from '../store/guilds.store.js';
import { membersStore, type MemberRow } from '../store/members.store.js';
import type { GuildsDeps } from './deps.js';
import { guildErrors } from './guild.errors.js';
import { actorIn, requireAbove, requireOutranks, requirePermission, type Actor } from './guild.guard.js';
import { renderBan, renderMember } from './guild.view.js';
import { memberColumns, type MemberChanges } from './member.rules.js';
import { removeMember } from './membership.service.js';
import { Permission } from './permissions.js';
import { userById, usersById } from './user.directory.js';

/** Members, their roles and bans: permission and hierarchy checks, then one transaction each. */
export class MembersService {
  constructor(private readonly deps: GuildsDeps) {}

  async list(userId: string, guildId: string, after: string | null, limit: number) {
    await actorIn(this.deps.db, this.deps.access, guildId, userId);
    const members = await membersStore.members(this.deps.db, guildId, after, limit);
    const users = await usersById(
      this.deps.auth,
      members.map((m) => m.user_id),
    );
    return members.map((m) => renderMember(m, users.get(m.user_id)));
  }

  async get(userId: string, guildId: string, targetId: string) {
    await actorIn(this.deps.db, this.deps.access, guildId, userId);
    const member = await membersStore.member(this.deps.db, guildId, targetId);
    if (!member) throw guildErrors.unknownMember();
    return renderMember(member, await this.userOf(targetId));
  }

  /** PATCH a member: member.rules.ts decides what the actor may change; roles are set with rank checks. */
  async update(userId: string, guildId: string, targetId: string, changes: MemberChanges) {
    const user = await this.userOf(targetId);
    return this.inGuild(userId, guildId, async (trx, actor) => {
      const member = await membersStore.member(trx, guildId, targetId);
      if (!member) throw guildErrors.unknownMember();
      const columns = memberColumns(actor, member, changes);
      await membersStore.updateMember(trx, guildId, targetId, columns);
      const rolesChanged = changes.roles !== undefined && (await this.setRoles(trx, actor, member, changes.roles));
      if (Object.keys(columns).length === 0 && !rolesChanged) return renderMember(member, user);
      return this.emitUpdate(trx, guildId, targetId, user);
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
    await this.inGuild(userId, guildId, async (trx, actor) => {
      requirePermission(actor, Permission.MANAGE_ROLES);
      const role = actor.roles.find((r) => r.id === roleId);
      if (!role || role.id === guildId) throw guildErrors.unknownRole();
      requireAbove(actor, role.position);
      const member = await membersStore.member(trx, guildId, targetId);
      if (!member) throw guildErrors.unknownMember();
      if (await this.setRoles(trx, actor, member, [...new Set(next(member.role_ids))])) await this.emitUpdate(trx, guildId, targetId, user);
    });
  }

  /** KICK_MEMBERS and rank over the member; never the owner. */
  async kick(userId: string, guildId: string, targetId: string): Promise<void> {
    const user = await userById(this.deps.auth, targetId);
    await this.inGuild(
      userId,
      guildId,
      async (trx, actor) => {
        requirePermission(actor, Permission.KICK_MEMBERS);
        const member = await membersStore.member(trx, guildId, targetId);
        if (!member) throw guildErrors.unknownMember();
        requireOutranks(actor, targetId, member.role_ids);
        await removeMember(this.deps, trx, guildId, targetId, user);
      },
      targetId,
    );
  }

  // Bans

  async bans(userId: string, guildId: string, page: { before?: string; after?: string; limit: number }) {
    const actor = await actorIn(this.deps.db, this.deps.access, guildId, userId);
    requirePermission(actor, Permission.BAN_MEMBERS);
    const bans = await membersStore.bans(this.deps.db, guildId, page);
    const users = await usersById(
      this.deps.auth,
      bans.map((b) => b.user_id),
    );
    return bans.map((b) => renderBan(b, users.get(b.user_id)));
  }

  async ban(userId: string, guildId: string, targetId: string) {
    const actor = await actorIn(this.deps.db, this.deps.access, guildId, userId);
    requirePermission(actor, Permission.BAN_MEMBERS);
    const ban = await membersStore.ban(this.deps.db, guildId, targetId);
    if (!ban) throw guildErrors.unknownBan();
    return renderBan(ban, await this.userOf(targetId));
  }

  /** BAN_MEMBERS, rank over the user if they are a member; banning removes them. */
  async putBan(userId: string, guildId: string, targetId: string, reason: string | null): Promise<void> {
    const user = await userById(this.deps.auth, targetId);
    if (!user) throw ApiError.of('UNKNOWN_USER');
    await this.inGuild(
      userId,
      guildId,
      async (trx, actor) => {
        requirePermission(actor, Permission.BAN_MEMBERS);
        const member = await membersStore.member(trx, guildId, targetId);
        if (targetId === actor.ownerId || targetId === userId) throw ApiError.of('MISSING_PERMISSIONS');
        if (member) requireOutranks(actor, targetId, member.role_ids);
        if (!(await membersStore.insertBan(trx, { guild_id: guildId, user_id: targetId, reason }))) return;
        if (member) await removeMember(this.deps, trx, guildId, targetId, user);
        await this.deps.outbox.enqueue(trx, [
          { name: 'GUILD_BAN_ADD', audience: { guilds: [guildId] }, data: { guild_id: guildId, user: userView(targetId, user) } },
        ]);
      },
      targetId,
    );
  }

  async deleteBan(userId: string, guildId: string, targetId: string): Promise<void> {
    const user = await this.userOf(targetId);
    await this.inGuild(userId, guildId, async (trx, actor) => {
      requirePermission(actor, Permission.BAN_MEMBERS);
      if (!(await membersStore.deleteBan(trx, guildId, targetId))) throw guildErrors.unknownBan();
      await this.deps.outbox.enqueue(trx, [
        { name: 'GUILD_BAN_REMOVE', audience: { guilds: [guildId] }, data: { guild_id: guildId, user: userView(targetId, user) } },
      ]);
    });
  }

  /** Sets a member's roles to `wanted`: each one added or removed must be a guild role below the actor. */
  private async setRoles(trx: Tx, actor: Actor, member: MemberRow, wanted: readonly string[]): Promise<boolean> {
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
    await membersStore.addMemberRoles(trx, actor.guildId, member.user_id, added);
    await membersStore.removeMemberRoles(trx, actor.guildId, member.user_id, removed);
    return added.length + removed.length > 0;
  }

  /** Announces the member as they now are; `user` is fetched before the transaction, not while it holds locks. */
  private async emitUpdate(trx: Tx, guildId: string, targetId: string, user: ContractUser | undefined) {
    const body = renderMember((await membersStore.member(trx, guildId, targetId))!, user);
    await this.deps.outbox.enqueue(trx, [
      { name: 'GUILD_MEMBER_UPDATE', audience: { guilds: [guildId] }, data: { ...body, guild_id: guildId } },
    ]);
    return body;
  }

  private userOf(userId: string): Promise<ContractUser | undefined> {
    return userById(this.deps.auth, userId);
  }

  /**
   * One change in a guild, its row locked. Changes that remove a member (kick, ban) name them in
   * `removing`: their membership lock is taken first, in the order joins take them (user, then
   * guild), so a join racing the removal waits instead of deadlocking.
   */
  private inGuild<T>(userId: string, guildId: string, fn: (trx: Tx, actor: Actor) => Promise<T>, removing?: string): Promise<T> {
    return this.deps.db.transaction().execute(async (trx) => {
      if (removing) await membersStore.lockUserMemberships(trx, removing);
      if (!(await guildsStore.lockGuild(trx, guildId))) throw ApiError.of('UNKNOWN_GUILD');
      return fn(trx, await actorIn(trx, this.deps.access, guildId, userId));
    });
  }
}
