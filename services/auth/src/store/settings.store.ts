import type { Kysely } from 'kysely';
import type { AuthDatabase, FriendSourceFlags } from './schema.js';

export interface StoredSettings {
  locale: string;
  theme: string;
  friend_source_flags: FriendSourceFlags;
}

export class SettingsStore {
  constructor(private readonly db: Kysely<AuthDatabase>) {}

  get(userId: string): Promise<StoredSettings | undefined> {
    return this.db.selectFrom('users').select(['locale', 'theme', 'friend_source_flags']).where('id', '=', userId).executeTakeFirst();
  }

  async update(userId: string, changes: Partial<StoredSettings>): Promise<StoredSettings | undefined> {
    const { friend_source_flags, ...rest } = changes;
    return this.db
      .updateTable('users')
      .set({ ...rest, ...(friend_source_flags ? { friend_source_flags: JSON.stringify(friend_source_flags) } : {}) })
      .where('id', '=', userId)
      .returning(['locale', 'theme', 'friend_source_flags'])
      .executeTakeFirst();
  }
}
