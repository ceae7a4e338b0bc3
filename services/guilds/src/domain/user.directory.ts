import type { ContractUser } from '@kith/platform';
import type { UserDirectory } from './ports.js';

/** One user from auth; undefined when auth does not know them (a deleted account). */
export async function userOf(users: UserDirectory, id: string): Promise<ContractUser | undefined> {
  return (await users.users([id])).get(id);
}
