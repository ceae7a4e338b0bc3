import type { ContractUser, ServiceClient } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { UserDirectory } from '../domain/ports.js';

/** Users from the account service, one batched call. */
export class AuthUsers implements UserDirectory {
  constructor(private readonly auth: ServiceClient<typeof AuthService>) {}

  async users(ids: readonly string[]): Promise<Map<string, ContractUser>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const { users } = await this.auth.getUsers({ userIds: unique });
    return new Map(users.map((u) => [u.id, u]));
  }

  async unknownIds(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return (await this.auth.findUnknownUserIds({ userIds: [...ids] })).unknownUserIds;
  }
}
