import { partialUserView, type ServiceClient } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { UserDirectory } from '../domain/ports.js';

/** Users from auth, rendered as the platform's partial user (a webhook's creator, mentioned users). */
export class AuthUsers implements UserDirectory {
  constructor(private readonly auth: ServiceClient<typeof AuthService>) {}

  async users(ids: string[]): Promise<Map<string, unknown>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const { users } = await this.auth.getUsers({ userIds: unique });
    return new Map(users.map((u) => [u.id, partialUserView(u)]));
  }
}
