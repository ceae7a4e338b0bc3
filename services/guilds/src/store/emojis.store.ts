import type { EmojiRepository } from '../domain/ports.js';
import type { EmojiRecord } from '../domain/records.js';
import type { Db } from './guilds.store.js';

/** The SQL of custom emojis. */
export class PgEmojis implements EmojiRepository {
  constructor(private readonly db: Db) {}

  list(guildId: string): Promise<EmojiRecord[]> {
    return this.db.selectFrom('emojis').selectAll().where('guild_id', '=', guildId).orderBy('id').execute();
  }

  ofIntegration(guildId: string, integrationId: string): Promise<EmojiRecord[]> {
    return this.db
      .selectFrom('emojis')
      .selectAll()
      .where('guild_id', '=', guildId)
      .where('integration_id', '=', integrationId)
      .orderBy('id')
      .execute();
  }

  async insert(emojis: readonly EmojiRecord[]): Promise<void> {
    if (emojis.length > 0)
      await this.db
        .insertInto('emojis')
        .values([...emojis])
        .execute();
  }

  async update(emoji: EmojiRecord): Promise<void> {
    const { id, name, role_ids, animated, available, image_url } = emoji;
    await this.db.updateTable('emojis').set({ name, role_ids, animated, available, image_url }).where('id', '=', id).execute();
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (ids.length > 0)
      await this.db
        .deleteFrom('emojis')
        .where('id', 'in', [...ids])
        .execute();
  }
}
