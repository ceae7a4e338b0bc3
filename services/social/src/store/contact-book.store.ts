import { sql, type DomainEvent, type Kysely } from '@kith/platform';
import type { ContactBook, ContactConnection, ContactHolder } from '../domain/contact-book.service.js';
import type { Emit } from './relationships.store.js';
import type { SocialDatabase } from './schema.js';

export class PgContactBook implements ContactBook {
  constructor(
    private readonly db: Kysely<SocialDatabase>,
    private readonly emit: Emit,
  ) {}

  connection(userId: string): Promise<ContactConnection | undefined> {
    return this.db
      .selectFrom('contact_syncs')
      .select(['user_id', 'name', 'friend_sync', 'allowed_in_suggestions'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  connect(connection: Omit<ContactConnection, 'allowed_in_suggestions'>, event: DomainEvent): Promise<ContactConnection> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('contact_syncs')
        .values(connection)
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ name: connection.name, friend_sync: connection.friend_sync }))
        .returning(['user_id', 'name', 'friend_sync', 'allowed_in_suggestions'])
        .executeTakeFirstOrThrow();
      await this.emit(trx, [event]);
      return row;
    });
  }

  /** The connection and every match go together; false when there was none. */
  disconnect(userId: string, event: DomainEvent): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx.deleteFrom('contact_syncs').where('user_id', '=', userId).executeTakeFirst();
      if (gone.numDeletedRows === 0n) return false;
      await trx.deleteFrom('contact_matches').where('user_id', '=', userId).execute();
      await this.emit(trx, [event]);
      return true;
    });
  }

  /** The sync replaces what the last one found. */
  async record(userId: string, allowedInSuggestions: number, matchedIds: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('contact_syncs').set({ allowed_in_suggestions: allowedInSuggestions }).where('user_id', '=', userId).execute();
      await trx.deleteFrom('contact_matches').where('user_id', '=', userId).execute();
      if (matchedIds.length > 0)
        await trx
          .insertInto('contact_matches')
          .values(matchedIds.map((id) => ({ user_id: userId, matched_user_id: id })))
          .execute();
    });
  }

  /** Of these users, those who synced contacts: their setting and whether they found `userId`. */
  async holders(userId: string, ids: readonly string[]): Promise<ContactHolder[]> {
    if (ids.length === 0) return [];
    const { rows } = await sql<ContactHolder>`
      SELECT s.user_id::text AS user_id, s.allowed_in_suggestions,
        EXISTS (SELECT 1 FROM contact_matches m WHERE m.user_id = s.user_id AND m.matched_user_id = ${userId}) AS has_me
      FROM contact_syncs s WHERE s.user_id = ANY(${[...ids]}::bigint[])`.execute(this.db);
    return rows;
  }

  /** Everyone whose last sync found `userId`, with their setting. */
  async holdersOf(userId: string): Promise<ContactHolder[]> {
    const { rows } = await sql<ContactHolder>`
      SELECT s.user_id::text AS user_id, s.allowed_in_suggestions, true AS has_me
      FROM contact_matches m JOIN contact_syncs s ON s.user_id = m.user_id
      WHERE m.matched_user_id = ${userId}
      ORDER BY m.user_id LIMIT 1000`.execute(this.db);
    return rows;
  }
}
