import { ApiError, memberView, partialUserView, type MemberData, type PartialUserView } from '@kith/platform';
import type { GuildDirectory, MutualGuild, UserDirectory } from './ports.js';
import { RelationshipType as T, type PartialUser } from './relationship.types.js';

/** What a profile reads of the social graph. */
export interface ProfileQueries {
  /** What `a` says of `b` and `b` of `a` (0: nothing). */
  types(a: string, b: string): Promise<{ aToB: number; bToA: number }>;
  mutualFriends(a: string, b: string): Promise<string[]>;
  isSuggested(userId: string, suggestedUserId: string): Promise<boolean>;
}

/** The guild service as a profile needs it: shared guilds, and a member object in one of them. */
export interface ProfileGuilds extends GuildDirectory {
  member(guildId: string, userId: string): Promise<MemberData | undefined>;
}

export interface ProfileOptions {
  withMutualGuilds: boolean;
  withMutualFriends: boolean;
  withMutualFriendsCount: boolean;
  guildId?: string | undefined;
}

/**
 * Other users as the platform shows them: `GET /users/{id}` (the partial user) and
 * `GET /users/{id}/profile`, which only someone with a reason to see the user may read (userdoccers
 * `resources/user`, Get User Profile): themself, a bot, someone sharing a guild, a friend, a friend
 * suggestion, or someone who sent the caller a friend request. Anyone else: 50001.
 */
export class ProfileService {
  constructor(
    private readonly users: Pick<UserDirectory, 'getUsers'>,
    private readonly guilds: ProfileGuilds,
    private readonly queries: ProfileQueries,
  ) {}

  async user(userId: string): Promise<PartialUserView> {
    return partialUserView(await this.find(userId));
  }

  async profile(callerId: string, userId: string, options: ProfileOptions): Promise<Record<string, unknown>> {
    const user = await this.find(userId);
    const self = callerId === userId;
    const [types, mutualGuilds] = self
      ? [{ aToB: 0, bToA: 0 }, [] as MutualGuild[]]
      : await Promise.all([this.queries.types(callerId, userId), this.guilds.mutualGuilds(callerId, userId)]);
    if (!(await this.maySee(callerId, user, types.aToB, mutualGuilds))) throw ApiError.of('MISSING_ACCESS');
    const bio = user.bio ?? '';
    const body: Record<string, unknown> = {
      user: { ...partialUserView(user), bio },
      connected_accounts: [],
      premium_type: null,
      premium_since: null,
      premium_guild_since: null,
    };
    // A user who blocked the caller shows them only who they are (the platform leaves the rest out).
    if (types.bToA === T.BLOCKED) return body;
    Object.assign(body, {
      user_profile: { bio, accent_color: null, pronouns: '', banner: null, theme_colors: null, emoji: null, profile_effect: null },
      badges: [],
      guild_badges: [],
      legacy_username: null,
    });
    if (options.withMutualGuilds) body.mutual_guilds = mutualGuilds.map((g) => ({ id: g.id, nick: g.nick ?? null }));
    if (options.withMutualFriends || options.withMutualFriendsCount) {
      // A bot never has friends, and one's own profile has none in common with oneself.
      const ids = self || user.bot ? [] : await this.queries.mutualFriends(callerId, userId);
      if (options.withMutualFriends) body.mutual_friends = await this.rendered(ids);
      if (options.withMutualFriendsCount) body.mutual_friends_count = ids.length;
    }
    const guildId = options.guildId;
    if (guildId !== undefined && (self || mutualGuilds.some((g) => g.id === guildId))) {
      const member = await this.guilds.member(guildId, userId);
      if (member) body.guild_member = memberView(member);
    }
    return body;
  }

  private async find(userId: string): Promise<PartialUser> {
    const user = (await this.users.getUsers([userId])).get(userId);
    if (!user) throw ApiError.of('UNKNOWN_USER');
    return user;
  }

  private async maySee(callerId: string, user: PartialUser, mine: number, mutualGuilds: MutualGuild[]): Promise<boolean> {
    if (callerId === user.id || user.bot || mutualGuilds.length > 0) return true;
    if (mine === T.FRIEND || mine === T.INCOMING_REQUEST) return true;
    return this.queries.isSuggested(callerId, user.id);
  }

  private async rendered(ids: string[]): Promise<PartialUserView[]> {
    const users = await this.users.getUsers(ids);
    return ids.flatMap((id) => {
      const u = users.get(id);
      return u ? [partialUserView(u)] : [];
    });
  }
}
