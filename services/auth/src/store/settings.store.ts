import type { Kysely } from 'kysely';
import type { SettingsPort, StoredSettings } from '../domain/ports.js';
import type { UserUpdates } from '../events/user.events.js';
import type { AuthDatabase } from './schema.js';

export class SettingsStore implements SettingsPort {
  constructor(
    private readonly db: Kysely<AuthDatabase>,
    private readonly updates: UserUpdates,
  ) {}

  get(userId: string): Promise<StoredSettings | undefined> {
    return this.db
      .selectFrom('users')
      .select(['locale', 'theme', 'friend_source_flags', 'friend_discovery_flags'])
      .where('id', '=', userId)
      .executeTakeFirst();
  }

  /** The locale is also a field of the user object: changing it announces the user (USER_UPDATE) with the change. */
  async update(userId: string, changes: Partial<StoredSettings>): Promise<StoredSettings | undefined> {
    const { friend_source_flags, ...rest } = changes;
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('users')
        .set({ ...rest, ...(friend_source_flags ? { friend_source_flags: JSON.stringify(friend_source_flags) } : {}) })
        .where('id', '=', userId)
        .returning(['locale', 'theme', 'friend_source_flags', 'friend_discovery_flags'])
        .executeTakeFirst();
      if (updated && changes.locale !== undefined) await this.updates.announce(trx, userId);
      return updated;
    });
  }
}
