import { sql, type DomainEvent, type Kysely } from '@kith/platform';
import type { SuggestionReason, SuggestionRow, SuggestionStore } from '../domain/suggestions.service.js';
import type { Emit } from './relationships.store.js';
import type { SocialDatabase } from './schema.js';

export class PgSuggestionStore implements SuggestionStore {
  constructor(
    private readonly db: Kysely<SocialDatabase>,
    private readonly emit: Emit,
  ) {}

  async listUnrelated(userId: string): Promise<SuggestionRow[]> {
    const { rows } = await sql<SuggestionRow>`
      SELECT s.user_id, s.suggested_user_id, s.reasons, s.from_suggested_user_contacts
      FROM friend_suggestions s
      WHERE s.user_id = ${userId}
        AND NOT EXISTS (SELECT 1 FROM relationships r WHERE r.user_id = s.user_id AND r.target_id = s.suggested_user_id AND (r.type <> 0 OR r.user_ignored))
        AND NOT EXISTS (SELECT 1 FROM relationships r WHERE r.user_id = s.suggested_user_id AND r.target_id = s.user_id AND r.type = 2)
      ORDER BY s.created_at`.execute(this.db);
    return rows.map((r) => ({ ...r, reasons: r.reasons as SuggestionReason[] }));
  }

  async upsert(row: SuggestionRow, event: DomainEvent): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('friend_suggestions')
        .values({ ...row, reasons: JSON.stringify(row.reasons) })
        .onConflict((oc) =>
          oc.columns(['user_id', 'suggested_user_id']).doUpdateSet({
            reasons: JSON.stringify(row.reasons),
            from_suggested_user_contacts: row.from_suggested_user_contacts,
          }),
        )
        .execute();
      await this.emit(trx, [event]);
    });
  }

  delete(userId: string, suggestedUserId: string, event: DomainEvent): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('friend_suggestions')
        .where('user_id', '=', userId)
        .where('suggested_user_id', '=', suggestedUserId)
        .executeTakeFirst();
      if (gone.numDeletedRows === 0n) return false;
      await this.emit(trx, [event]);
      return true;
    });
  }
}
