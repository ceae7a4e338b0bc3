import { ApiError } from '@kith/platform';
import { isInviteCode } from './invite.codes.js';
import type { InviteRenderer } from './invite.renderer.js';
import { InviteType, type InviteRecord } from './invite.types.js';
import type { GuildDirectory, InviteStore, SocialDirectory } from './ports.js';

/** Friend invites last a week and befriend five people, as the platform's do. */
export const FRIEND_INVITE_MAX_AGE = 604_800;
export const FRIEND_INVITE_MAX_USES = 5;
/** Friends looked up in the invite's guild at once (Get Invite Friend Members). */
const MEMBER_LOOKUPS_AT_ONCE = 32;

/** `/users/@me/invites` and the friend side of invites. */
export class FriendInvitesService {
  constructor(
    private readonly store: InviteStore,
    private readonly social: SocialDirectory,
    private readonly guilds: GuildDirectory,
    private readonly render: InviteRenderer,
  ) {}

  /** Create User Invite: a fresh code, or the client's pre-generated one (50020 when malformed or taken). */
  async create(userId: string, code: string | undefined): Promise<Record<string, unknown>> {
    if (code !== undefined && !isInviteCode(code)) throw ApiError.of('INVALID_INVITE');
    const outcome = await this.store.create(
      {
        ...(code !== undefined ? { code } : {}),
        type: InviteType.FRIEND,
        guild_id: null,
        channel_id: null,
        inviter_id: userId,
        max_age: FRIEND_INVITE_MAX_AGE,
        max_uses: FRIEND_INVITE_MAX_USES,
        temporary: false,
        flags: 0,
        target_type: null,
        target_user_id: null,
        target_application_id: null,
        role_ids: [],
      },
      0,
      () => [],
    );
    if (!('invite' in outcome)) throw ApiError.of('INVALID_INVITE');
    return this.render.one(outcome.invite, { metadata: true });
  }

  async list(userId: string): Promise<Record<string, unknown>[]> {
    return this.render.many(await this.store.listFriendInvites(userId), { metadata: true });
  }

  async revokeAll(userId: string): Promise<Record<string, unknown>[]> {
    return this.render.many(await this.store.revokeFriendInvites(userId, () => []), { metadata: true });
  }

  /** Get Invite Friend Members: the caller's friends who are in the invite's guild. */
  async friendMembers(userId: string, invite: InviteRecord): Promise<string[]> {
    if (invite.type !== InviteType.GUILD || !invite.guild_id) return [];
    const guildId = invite.guild_id;
    const friends = await this.social.friendIds(userId);
    const members: string[] = [];
    for (let i = 0; i < friends.length; i += MEMBER_LOOKUPS_AT_ONCE) {
      const batch = friends.slice(i, i + MEMBER_LOOKUPS_AT_ONCE);
      const found = await Promise.all(batch.map((id) => this.guilds.member(guildId, id)));
      batch.forEach((id, j) => found[j] && members.push(id));
    }
    return members;
  }
}
