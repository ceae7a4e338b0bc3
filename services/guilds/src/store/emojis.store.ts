import type { EmojiRepository } from '../domain/ports.js';
import type { EmojiRecord } from '../domain/records.js';
import type { Db } from './guilds.store.js';

/** The SQL of custom emojis. */
export class PgEmojis implements EmojiRepository {
  constructor(private readonly db: Db) {}

  list(guildId: string): Promise<EmojiRecord[]> {
    return this.db.selectFrom('emojis').selectAll().where('guild_id', '=', guildId).orderBy('id').execute();
  }

  async listMany(guildIds: readonly string[]): Promise<Map<string, EmojiRecord[]>> {
    const byGuild = new Map<string, EmojiRecord[]>();
    if (guildIds.length === 0) return byGuild;
    const rows = await this.db
      .selectFrom('emojis')
      .selectAll()
      .where('guild_id', 'in', [...guildIds])
      .orderBy('id')
      .execute();
    for (const row of rows) {
      const list = byGuild.get(row.guild_id);
      if (list) list.push(row);
      else byGuild.set(row.guild_id, [row]);
    }
    return byGuild;
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
