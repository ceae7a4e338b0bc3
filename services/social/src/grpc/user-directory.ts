import type { ServiceClient } from '@kith/platform';
import type { AuthService, PartialUser as ProtoUser } from '@kith/proto/auth/v1/auth';
import type { UserDirectory } from '../domain/ports.js';
import type { FriendSourceFlags, PartialUser } from '../domain/relationship.types.js';

function toPartialUser(u: ProtoUser): PartialUser {
  return {
    id: u.id,
    username: u.username,
    discriminator: u.discriminator,
    global_name: u.globalName ?? null,
    avatar: u.avatar ?? null,
    avatar_decoration_data: null,
    public_flags: Number(u.publicFlags),
    ...(u.bot ? { bot: true } : {}),
    primary_guild: null,
  };
}

/** The account service over gRPC: users by id (one batched call) or by name, and privacy settings. */
export class AuthUserDirectory implements UserDirectory {
  constructor(private readonly auth: ServiceClient<typeof AuthService>) {}

  async getUsers(ids: string[]): Promise<Map<string, PartialUser>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const { users } = await this.auth.getUsers({ userIds: unique });
    return new Map(users.map((u) => [u.id, toPartialUser(u)]));
  }

  async findByUsername(username: string, discriminator: string | null): Promise<PartialUser | undefined> {
    const answer = await this.auth.findUserByUsername({ username, discriminator: discriminator ?? '' });
    return answer.user ? toPartialUser(answer.user) : undefined;
  }

  async friendSourceFlags(userId: string): Promise<FriendSourceFlags> {
    const flags = await this.auth.getFriendSourceFlags({ userId });
    return { all: flags.all, mutual_friends: flags.mutualFriends, mutual_guilds: flags.mutualGuilds };
  }
}
