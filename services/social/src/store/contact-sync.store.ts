import { sql, type Kysely } from '@kith/platform';
import type { ContactSyncTokens } from '../domain/contact-sync.service.js';
import type { SocialDatabase } from './schema.js';

export class PgContactSyncTokens implements ContactSyncTokens {
  constructor(private readonly db: Kysely<SocialDatabase>) {}

  async insert(hash: Buffer, userId: string, userIds: string[], expiresAt: Date): Promise<void> {
    await this.db
      .insertInto('contact_sync_tokens')
      .values({ token_hash: hash, user_id: userId, user_ids: userIds, expires_at: expiresAt, used_at: null })
      .execute();
  }

  /** One UPDATE decides: two concurrent uses of a token cannot both win. */
  async consume(hash: Buffer, userId: string): Promise<string[] | undefined> {
    const row = await this.db
      .updateTable('contact_sync_tokens')
      .set({ used_at: sql`now()` })
      .where('token_hash', '=', hash)
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returning('user_ids')
      .executeTakeFirst();
    return row?.user_ids.map(String);
  }
}
