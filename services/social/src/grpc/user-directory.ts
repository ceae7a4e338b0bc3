import type { ServiceClient } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { UserDirectory } from '../domain/ports.js';
import type { FriendSourceFlags, PartialUser } from '../domain/relationship.types.js';

/** The account service over gRPC: users by id (one batched call) or by name, and privacy settings. */
export class AuthUserDirectory implements UserDirectory {
  constructor(private readonly auth: ServiceClient<typeof AuthService>) {}

  async getUsers(ids: string[]): Promise<Map<string, PartialUser>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const { users } = await this.auth.getUsers({ userIds: unique });
    return new Map(users.map((u) => [u.id, u]));
  }

  async findByUsername(username: string, discriminator: string | null): Promise<PartialUser | undefined> {
    const answer = await this.auth.findUserByUsername({ username, discriminator: discriminator ?? '' });
    return answer.user;
  }

  /** Contact sync: who among the contacts lets themselves be found (auth keeps phones and emails). */
  async findByContacts(userId: string, contacts: string[]): Promise<string[]> {
    return (await this.auth.findUsersByContacts({ userId, contacts })).userIds;
  }

  async friendSourceFlags(userId: string): Promise<FriendSourceFlags> {
    const flags = await this.auth.getFriendSourceFlags({ userId });
    return { all: flags.all, mutual_friends: flags.mutualFriends, mutual_guilds: flags.mutualGuilds };
  }
}
