import type { ServiceClient } from '@kith/platform';
import type { AuthService, PartialUser as ProtoUser } from '@kith/proto/auth/v1/auth';
import type { PartialUser } from './channel.view.js';

function toPartialUser(u: ProtoUser): PartialUser {
  return {
    id: u.id,
    username: u.username,
    discriminator: u.discriminator,
    global_name: u.globalName ?? null,
    avatar: u.avatar ?? null,
    public_flags: Number(u.publicFlags),
    ...(u.bot ? { bot: true } : {}),
  };
}

/** Users come from auth: one batched GetUsers call per page of members, bans or recipients. */
export async function usersById(auth: ServiceClient<typeof AuthService>, ids: readonly string[]): Promise<Map<string, PartialUser>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const { users } = await auth.getUsers({ userIds: unique });
  return new Map(users.map((u) => [u.id, toPartialUser(u)]));
}

/** One user from auth; undefined when auth does not know them (a deleted account). */
export async function userById(auth: ServiceClient<typeof AuthService>, id: string): Promise<PartialUser | undefined> {
  return (await usersById(auth, [id])).get(id);
}

/** A stand-in for a user auth no longer knows (a deleted account), so a page still renders. */
export const unknownUser = (id: string): PartialUser => ({
  id,
  username: 'Deleted User',
  discriminator: '0',
  global_name: null,
  avatar: null,
  public_flags: 0,
});
