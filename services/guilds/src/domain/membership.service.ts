import {
  ApiError,
  guildCreateView,
  userView,
  type ContractUser,
  type DomainEvent,
  type GuildCreateData,
  type GuildData,
} from '@kith/platform';
import { guildsStore, type Db, type GuildRow, type Tx } from '../store/guilds.store.js';
import { membersStore, type MemberRow } from '../store/members.store.js';
import { rolesStore } from '../store/roles.store.js';
import { visibleGuildChannels } from './channel.service.js';
import type { GuildsDeps } from './deps.js';
import { renderMember, toGuild, toMember } from './guild.view.js';
import type { GuildPermissionContext } from './permissions.js';
import { userById } from './user.directory.js';

/** The platform's cap on how many guilds one user is in. */
export const MAX_GUILDS_PER_USER = 100;
/** A guild with more members than this is `large` in GUILD_CREATE. */
const LARGE_THRESHOLD = 250;

export type GuildCreate = GuildCreateData & { guild: GuildData };

/**
 * The guild as GUILD_CREATE (and READY) carries it for one member: the guild object, the channels
 * they can see, their member object and the counts. `member` is theirs.
 */
export async function guildCreateFor(db: Db, guild: GuildRow, member: MemberRow, user: ContractUser | undefined): Promise<GuildCreate> {
  const roles = await rolesStore.roles(db, guild.id);
  const ctx: GuildPermissionContext = {
    guildId: guild.id,
    ownerId: guild.owner_id,
    roles: new Map(roles.map((r) => [r.id, { id: r.id, permissions: BigInt(r.permissions) }])),
    userId: member.user_id,
    memberRoleIds: member.role_ids,
  };
  return {
    guild: toGuild(guild, roles),
    joinedAt: member.joined_at.toISOString(),
    large: guild.member_count > LARGE_THRESHOLD,
    members: [toMember(member, user)],
    channels: await visibleGuildChannels(db, guild.id, ctx),
    threads: [],
  };
}

export interface JoinOptions {
  roleIds?: readonly string[];
  temporary?: boolean;
  /** Guests (guest invites) are flagged members; the platform's flag bit for them. */
  guest?: boolean;
}

export type JoinResult = { error: 10004 | 40007 | 30001 } | { error: 0; alreadyMember: boolean; member: MemberRow; guild: GuildCreate };

/** The platform's member flag for guests (joined through a guest invite). */
const MEMBER_FLAG_IS_GUEST = 1 << 4;

/**
 * Adds a user to a guild (invites, and the creator on create). Runs with the user's memberships
 * locked so the 100-guild cap holds under concurrent joins and creates. Emits GUILD_CREATE to the
 * user and GUILD_MEMBER_ADD to the guild.
 */
export async function joinGuild(deps: GuildsDeps, guildId: string, userId: string, options: JoinOptions = {}): Promise<JoinResult> {
  const user = await userById(deps.auth, userId);
  if (!user) throw ApiError.of('UNKNOWN_USER');
  return deps.db.transaction().execute(async (trx) => {
    await membersStore.lockUserMemberships(trx, userId);
    // Then the guild row, as role changes take it: the roles read below cannot be deleted before they are given.
    const guild = await guildsStore.lockGuild(trx, guildId);
    if (!guild) return { error: 10004 as const };
    const existing = await membersStore.member(trx, guildId, userId);
    if (existing)
      return { error: 0 as const, alreadyMember: true, member: existing, guild: await guildCreateFor(trx, guild, existing, user) };
    if (await membersStore.ban(trx, guildId, userId)) return { error: 40007 as const };
    if ((await membersStore.guildCountOf(trx, userId)) >= MAX_GUILDS_PER_USER) return { error: 30001 as const };
    const roles = await rolesStore.roles(trx, guildId);
    const known = new Set(roles.filter((r) => !r.managed && r.id !== guildId).map((r) => r.id));
    const roleIds = [...new Set(options.roleIds ?? [])].filter((id) => known.has(id));
    await membersStore.insertMember(
      trx,
      { guild_id: guildId, user_id: userId, temporary: options.temporary ?? false, flags: options.guest ? MEMBER_FLAG_IS_GUEST : 0 },
      roleIds,
    );
    const member = (await membersStore.member(trx, guildId, userId))!;
    const counted = (await guildsStore.guild(trx, guildId))!;
    const created = await guildCreateFor(trx, counted, member, user);
    await deps.outbox.enqueue(trx, [
      { name: 'GUILD_CREATE', audience: { users: [userId] }, data: guildCreateView(created) },
      { name: 'GUILD_MEMBER_ADD', audience: { guilds: [guildId] }, data: { ...renderMember(member, user), guild_id: guildId } },
    ]);
    return { error: 0 as const, alreadyMember: false, member, guild: created };
  });
}

/**
 * Removes a member inside the caller's transaction (leave, kick, ban, RemoveMember): the guild
 * hears GUILD_MEMBER_REMOVE, the user GUILD_DELETE (realtime drops their subscription on it).
 * False when they were not a member.
 */
export async function removeMember(deps: GuildsDeps, trx: Tx, guildId: string, userId: string, user?: ContractUser): Promise<boolean> {
  await membersStore.lockUserMemberships(trx, userId);
  if (!(await membersStore.deleteMember(trx, guildId, userId))) return false;
  const removed = userView(userId, user ?? (await userById(deps.auth, userId)));
  const events: DomainEvent[] = [
    { name: 'GUILD_MEMBER_REMOVE', audience: { guilds: [guildId] }, data: { guild_id: guildId, user: removed } },
    { name: 'GUILD_DELETE', audience: { users: [userId] }, data: { id: guildId } },
  ];
  await deps.outbox.enqueue(trx, events);
  return true;
}

/**
 * A member going of their own accord (leave) or at another service's request (RemoveMember). The
 * owner never goes: a guild always has its owner among its members. Locks in the order joins take
 * them (the user, then the guild), so an ownership transfer to them waits and then sees them gone.
 */
export async function removeUnlessOwner(
  deps: GuildsDeps,
  guildId: string,
  userId: string,
): Promise<'removed' | 'owner' | 'not_member' | 'unknown_guild'> {
  const user = await userById(deps.auth, userId);
  return deps.db.transaction().execute(async (trx) => {
    await membersStore.lockUserMemberships(trx, userId);
    const guild = await guildsStore.lockGuild(trx, guildId);
    if (!guild) return 'unknown_guild';
    if (guild.owner_id === userId) return 'owner';
    return (await removeMember(deps, trx, guildId, userId, user)) ? 'removed' : 'not_member';
  });
}
