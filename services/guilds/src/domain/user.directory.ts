import type { ContractUser, ServiceClient } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';

/** Users come from auth: one batched GetUsers call per page of members, bans or recipients. */
export async function usersById(auth: ServiceClient<typeof AuthService>, ids: readonly string[]): Promise<Map<string, ContractUser>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const { users } = await auth.getUsers({ userIds: unique });
  return new Map(users.map((u) => [u.id, u]));
}

/** One user from auth; undefined when auth does not know them (a deleted account). */
export async function userById(auth: ServiceClient<typeof AuthService>, id: string): Promise<ContractUser | undefined> {
  return (await usersById(auth, [id])).get(id);
}
