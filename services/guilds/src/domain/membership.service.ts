import {
  ApiError,
  guildCreateView,
  userView,
  type ContractUser,
  type DomainEvent,
  type GuildCreateData,
  type GuildData,
} from '@kith/platform';
import { visibleGuildChannels } from './channel.service.js';
import { MEMBER_FLAG_IS_GUEST, type GuestService } from './guest.service.js';
import { renderMember, toGuild, toMember } from './guild.view.js';
import type { GuildPermissionContext } from './permissions.js';
import type { GuildsStore, GuildsTx, GuildsUnit, IdSource, UserDirectory } from './ports.js';
import type { EmojiRecord, GuildRecord, JoinRequestRecord, MemberRecord, RoleRecord } from './records.js';
import { userOf } from './user.directory.js';

/** The platform's cap on how many guilds one user is in. */
export const MAX_GUILDS_PER_USER = 100;
/** A guild with more members than this is `large` in GUILD_CREATE. */
const LARGE_THRESHOLD = 250;
/** The guild feature that puts new members behind member verification (`pending` until they pass). */
export const MEMBER_VERIFICATION_GATE = 'MEMBER_VERIFICATION_GATE_ENABLED';

/** The platform's guild join request object as its owner sees it. */
export function joinRequestView(request: JoinRequestRecord) {
  return {
    id: request.id,
    join_request_id: request.id,
    created_at: request.created_at.toISOString(),
    application_status: request.status,
    guild_id: request.guild_id,
    user_id: request.user_id,
    last_seen: null,
    rejection_reason: null,
    interview_channel_id: null,
  };
}

export type GuildCreate = GuildCreateData & { guild: GuildData };

/**
 * The guild as GUILD_CREATE (and READY) carries it for one member: the guild object, the channels
 * they can see, their member object and the counts. `member` is theirs.
 */
export async function guildCreateFor(
  unit: Pick<GuildsUnit, 'roles' | 'channels' | 'emojis'>,
  guild: GuildRecord,
  member: MemberRecord,
  user: ContractUser | undefined,
  /** The guild's roles when the caller has just read them. */
  known?: readonly RoleRecord[],
  /** The guild's emojis when the caller has read them (READY reads every guild's at once). */
  knownEmojis?: readonly EmojiRecord[],
): Promise<GuildCreate> {
  const [roles, emojis] = await Promise.all([known ?? unit.roles.list(guild.id), knownEmojis ?? unit.emojis.list(guild.id)]);
  const ctx: GuildPermissionContext = {
    guildId: guild.id,
    ownerId: guild.owner_id,
    roles: new Map(roles.map((r) => [r.id, { id: r.id, permissions: BigInt(r.permissions) }])),
    userId: member.user_id,
    memberRoleIds: member.role_ids,
  };
  return {
    guild: toGuild(guild, roles, emojis),
    joinedAt: member.joined_at.toISOString(),
    large: guild.member_count > LARGE_THRESHOLD,
    members: [toMember(member, user)],
    channels: await visibleGuildChannels(unit, guild.id, ctx),
    threads: [],
  };
}

export interface JoinOptions {
  roleIds?: readonly string[];
  temporary?: boolean;
  /** Guests (guest invites) are not members: `sessionId` alone gets access to `channelId`. */
  guest?: boolean;
  sessionId?: string;
  channelId?: string;
  /** Skips member verification (invites with IS_APPLICATION_BYPASS): never `pending`, no join request. */
  bypassVerification?: boolean;
}

export type JoinResult = { error: 10004 | 40007 | 30001 } | { error: 0; alreadyMember: boolean; member: MemberRecord; guild: GuildCreate };

export type RemoveOutcome = 'removed' | 'owner' | 'not_member' | 'unknown_guild';

/** Joining and leaving guilds: the guild cap, bans, and the events both sides hear. */
export class MembershipService {
  constructor(
    private readonly store: GuildsStore,
    private readonly users: UserDirectory,
    private readonly ids: IdSource,
    readonly guests: GuestService,
  ) {}

  /**
   * Adds a user to a guild (invites). Where the guild has member verification on, the member is
   * `pending` and their join request starts (GUILD_JOIN_REQUEST_CREATE, to them alone while it is
   * only STARTED), unless the invite bypasses it. Runs with the user's memberships locked so the 100-guild cap
   * holds under concurrent joins and creates. Emits GUILD_CREATE to the user and GUILD_MEMBER_ADD
   * to the guild.
   */
  async join(guildId: string, userId: string, options: JoinOptions = {}): Promise<JoinResult> {
    const user = await userOf(this.users, userId);
    if (!user) throw ApiError.of('UNKNOWN_USER');
    return this.store.transaction(async (tx) => {
      // The user's memberships one change at a time (the 100-guild cap); the guild only kept from
      // being deleted meanwhile, so joins to one guild do not wait for each other.
      const guild = await tx.guilds.share(guildId, userId);
      if (!guild) return { error: 10004 as const };
      const { member: existing, banned, guildCount } = await tx.members.standing(guildId, userId);
      if (existing)
        return { error: 0 as const, alreadyMember: true, member: existing, guild: await guildCreateFor(tx, guild, existing, user) };
      if (options.guest && options.sessionId) {
        const admitted = await this.guests.admit(tx, guild, { id: userId, user }, options.sessionId, options.channelId ?? '');
        return admitted.error === 0 ? { ...admitted, alreadyMember: false } : admitted;
      }
      if (banned) return { error: 40007 as const };
      if (guildCount >= MAX_GUILDS_PER_USER) return { error: 30001 as const };
      const wanted = [...new Set(options.roleIds ?? [])].filter((id) => id !== guildId);
      // The roles to give cannot be deleted before they are given (a deleted one is just left out).
      if (wanted.length > 0) await tx.roles.share(wanted);
      const roles = await tx.roles.list(guildId);
      // A managed role is given by hand only to the bot it was made for (its authorization's role).
      const known = new Set(roles.filter((r) => (!r.managed || r.bot_id === userId) && r.id !== guildId).map((r) => r.id));
      const roleIds = wanted.filter((id) => known.has(id));
      // A guest join without a session (nothing to bind the access to) stays the flagged member it always was.
      const flags = options.guest ? MEMBER_FLAG_IS_GUEST : 0;
      const pending = guild.features.includes(MEMBER_VERIFICATION_GATE) && !options.bypassVerification;
      const member = await tx.members.insert(
        { guild_id: guildId, user_id: userId, temporary: options.temporary ?? false, flags, pending },
        roleIds,
      );
      // The count as this join leaves it (others committing meanwhile make it approximate, as the platform's is).
      const created = await guildCreateFor(tx, { ...guild, member_count: guild.member_count + 1 }, member, user, roles);
      const events: DomainEvent[] = [
        { name: 'GUILD_CREATE', audience: { users: [userId] }, data: guildCreateView(created) },
        { name: 'GUILD_MEMBER_ADD', audience: { guilds: [guildId] }, data: { ...renderMember(member, user), guild_id: guildId } },
      ];
      if (pending) {
        const request = await tx.verification.startJoinRequest({ id: this.ids.next(), guild_id: guildId, user_id: userId });
        events.push({
          name: 'GUILD_JOIN_REQUEST_CREATE',
          audience: { users: [userId] },
          data: { guild_id: guildId, status: request.status, request: joinRequestView(request) },
        });
      }
      await tx.emit(events);
      return { error: 0 as const, alreadyMember: false, member, guild: created };
    });
  }

  /**
   * Removes a member inside the caller's transaction (leave, kick, ban, RemoveMember): the guild
   * hears GUILD_MEMBER_REMOVE, the user GUILD_DELETE (realtime drops their subscription on it).
   * False when they were not a member.
   */
  async remove(tx: GuildsTx, guildId: string, userId: string, user?: ContractUser): Promise<boolean> {
    await tx.members.lockUser(userId);
    if (!(await tx.members.delete(guildId, userId))) return false;
    const removed = userView(userId, user ?? (await userOf(this.users, userId)));
    const events: DomainEvent[] = [
      { name: 'GUILD_MEMBER_REMOVE', audience: { guilds: [guildId] }, data: { guild_id: guildId, user: removed } },
      { name: 'GUILD_DELETE', audience: { users: [userId] }, data: { id: guildId } },
    ];
    await tx.emit(events);
    return true;
  }

  /**
   * The user's last gateway connection closed (realtime's SESSIONS_ENDED): the memberships that
   * last only while they are connected end, each as a removal (GUILD_MEMBER_REMOVE, GUILD_DELETE).
   * A temporary member given a role since is a member for good. Answers the guilds they left.
   */
  async endTemporary(userId: string): Promise<string[]> {
    const user = await userOf(this.users, userId);
    return this.store.transaction(async (tx) => {
      await tx.members.lockUser(userId);
      const guildIds = await tx.members.temporaryGuildsOf(userId);
      for (const guildId of guildIds) await this.remove(tx, guildId, userId, user);
      // A guest's access never outlives the user's last connection either.
      await this.guests.endIn(tx, { userId });
      return guildIds;
    });
  }

  /**
   * A member going of their own accord (leave) or at another service's request (RemoveMember). The
   * owner never goes: a guild always has its owner among its members. Locks in the order joins take
   * them (the user, then the guild), so an ownership transfer to them waits and then sees them gone.
   */
  async removeUnlessOwner(guildId: string, userId: string): Promise<RemoveOutcome> {
    const user = await userOf(this.users, userId);
    return this.store.transaction(async (tx) => {
      await tx.members.lockUser(userId);
      const guild = await tx.guilds.lock(guildId);
      if (!guild) return 'unknown_guild';
      if (guild.owner_id === userId) return 'owner';
      return (await this.remove(tx, guildId, userId, user)) ? 'removed' : 'not_member';
    });
  }
}
