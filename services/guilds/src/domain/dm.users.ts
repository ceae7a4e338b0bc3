import type { ServiceClient } from '@kith/platform';
import type { AuthService, PartialUser as ProtoUser } from '@kith/proto/auth/v1/auth';
import type { PartialUser } from './channel.view.js';

const toPartialUser = (u: ProtoUser): PartialUser => ({
  id: u.id,
  username: u.username,
  discriminator: u.discriminator,
  global_name: u.globalName ?? null,
  avatar: u.avatar ?? null,
  public_flags: Number(u.publicFlags),
  ...(u.bot ? { bot: true } : {}),
});

/** Users by id from auth, one batched call. */
export class UserLookup {
  constructor(private readonly auth: ServiceClient<typeof AuthService>) {}

  async byIds(ids: readonly string[]): Promise<Map<string, PartialUser>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const { users } = await this.auth.getUsers({ userIds: unique });
    return new Map(users.map((u) => [u.id, toPartialUser(u)]));
  }
}
