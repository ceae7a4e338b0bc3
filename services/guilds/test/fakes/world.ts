import { ApiError } from '@kith/platform';
import { contractUser } from '@kith/platform/testing';
import { guildsDomain } from '../../src/domain/guilds.domain.js';
import { CountingIds, MemoryGuildsStore, MemoryUsers } from './memory.store.js';

/**
 * The guilds domain as app.ts builds it, over the in-memory store and users: what the unit tests
 * drive. `user()` makes a user auth knows; `guild(owner)` creates a guild through the domain.
 */
export function world() {
  const store = new MemoryGuildsStore();
  const users = new MemoryUsers();
  const ids = new CountingIds();
  const domain = guildsDomain({ store, users, ids, checker: store.access });
  let count = 0;
  const user = (name = `user${++count}`): string => users.add(contractUser(ids.next(), name)).id;
  const guild = async (ownerId: string, name = 'guild'): Promise<string> => (await domain.guilds.create(ownerId, { name })).id as string;
  async function join(guildId: string, ...userIds: string[]): Promise<void> {
    for (const userId of userIds) {
      const joined = await domain.membership.join(guildId, userId);
      if (joined.error !== 0) throw new Error(`join refused: ${joined.error}`);
    }
  }
  return { store, users, ids, ...domain, user, guild, join };
}

export type World = ReturnType<typeof world>;

/** The platform error code a call fails with, or 'ok'. Anything but an ApiError fails the test. */
export async function code(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return err.body.code;
    throw err;
  }
}

/** The 50035 field errors of a call, by path. */
export async function fieldErrors(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError && err.body.code === 50035) return err.body.errors as Record<string, unknown>;
    throw err;
  }
  throw new Error('no 50035');
}
