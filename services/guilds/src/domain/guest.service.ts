import { guildCreateView, type ContractUser, type DomainEvent } from '@kith/platform';
import { toChannel } from './channel.view.js';
import { toGuild, toMember } from './guild.view.js';
import type { GuildCreate } from './membership.service.js';
import type { GuildsStore, GuildsTx } from './ports.js';
import type { GuestRecord, GuildRecord, MemberRecord } from './records.js';

/** The platform's member flag for guests: shown on the guest's own member object, never stored as a member. */
export const MEMBER_FLAG_IS_GUEST = 1 << 4;

export type AdmitResult = { error: 10004 | 40007 } | { error: 0; member: MemberRecord; guild: GuildCreate };

/** The event a guest session hears when its access ends: GUILD_DELETE to that one session. */
const endEvent = (g: GuestRecord): DomainEvent => ({
  name: 'GUILD_DELETE',
  audience: { sessions: [{ id: g.session_id, user_id: g.user_id }] },
  data: { id: g.guild_id },
});

/**
 * Guest access (guest invites, IS_GUEST_INVITE): the user does not become a member. The gateway
 * session named at acceptance alone hears a GUILD_CREATE holding only the invite's channel, and
 * nothing else of the guild but GUILD_DELETE when the access ends: when that session's connection
 * closes (realtime's GUEST_SESSION_ENDED), the user's last connection closes (SESSIONS_ENDED), they
 * are banned, or the guild is deleted.
 */
export class GuestService {
  constructor(private readonly store: GuildsStore) {}

  /** Inside the join's transaction, with the user's memberships locked and the guild read. */
  async admit(
    tx: GuildsTx,
    guild: GuildRecord,
    user: { id: string; user: ContractUser | undefined },
    sessionId: string,
    channelId: string,
  ): Promise<AdmitResult> {
    const userId = user.id;
    if (await tx.members.ban(guild.id, userId)) return { error: 40007 };
    const channel = channelId ? await tx.channels.get(channelId) : undefined;
    // The invite's channel went away with its invite: as if the invite were unknown.
    if (!channel || channel.guild_id !== guild.id) return { error: 10004 };
    const member: MemberRecord = {
      guild_id: guild.id,
      user_id: userId,
      nick: null,
      avatar: null,
      joined_at: new Date(),
      premium_since: null,
      deaf: false,
      mute: false,
      pending: false,
      flags: MEMBER_FLAG_IS_GUEST,
      temporary: true,
      communication_disabled_until: null,
      role_ids: [],
    };
    const created: GuildCreate = {
      guild: toGuild(guild, await tx.roles.list(guild.id)),
      joinedAt: member.joined_at.toISOString(),
      large: false,
      members: [toMember(member, user.user)],
      channels: [toChannel(channel, await tx.channels.overwrites(channel.id))],
      threads: [],
    };
    if (await tx.guests.add({ guild_id: guild.id, user_id: userId, session_id: sessionId, channel_id: channel.id })) {
      await tx.emit([
        { name: 'GUILD_CREATE', audience: { sessions: [{ id: sessionId, user_id: userId }] }, data: guildCreateView(created) },
      ]);
    }
    return { error: 0, member, guild: created };
  }

  /** Ends the accesses that match (a session's, a user's), each session hearing GUILD_DELETE. */
  async end(where: { userId: string; sessionId?: string }): Promise<GuestRecord[]> {
    return this.store.transaction((tx) => this.endIn(tx, where));
  }

  /** The same inside a caller's transaction (a ban, a guild deletion). */
  async endIn(tx: GuildsTx, where: { guildId?: string; userId?: string; sessionId?: string }): Promise<GuestRecord[]> {
    const ended = await tx.guests.end(where);
    if (ended.length > 0) await tx.emit(ended.map(endEvent));
    return ended;
  }
}
