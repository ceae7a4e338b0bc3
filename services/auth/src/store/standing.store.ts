import type { Outbox } from '@kith/platform';
import { sql, type Kysely } from 'kysely';
import { sessionChangeEvents } from '../events/session.events.js';
import type { RevokedSession } from '../domain/ports.js';
import {
  AppealStatus,
  type ClassificationRow,
  type NewClassification,
  type ReviewOutcome,
  type StandingPort,
} from '../domain/standing/standing.ports.js';
import type { AuthDatabase } from './schema.js';
import { SessionsWriter } from './sessions.store.js';

/** Account standing (migration 0012): the marks on users, classifications and their appeals. */
export class StandingStore implements StandingPort {
  constructor(
    private readonly db: Kysely<AuthDatabase>,
    private readonly outbox: Outbox,
  ) {}

  restrict(userId: string, mark: 'suspended' | 'locked', c: NewClassification): Promise<RevokedSession[] | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const column = mark === 'suspended' ? 'suspended_at' : 'locked_at';
      const user = await trx
        .updateTable('users')
        .set({ [column]: sql`coalesce(${sql.ref(column)}, now())` })
        .where('id', '=', userId)
        .returning('id')
        .executeTakeFirst();
      if (!user) return undefined;
      await trx
        .insertInto('classifications')
        .values({ id: c.id, user_id: userId, action_type: c.actionType, description: c.description, lifted_at: null })
        .execute();
      // Every token of the account stops at once: the edge and the sockets hear of each session.
      const sessions = new SessionsWriter(trx, this.outbox);
      const revoked = await sessions.revokeAllOf(userId);
      await sessions.enqueue(sessionChangeEvents(userId, revoked));
      return revoked;
    });
  }

  async requirePasswordUpdate(userId: string): Promise<boolean> {
    const row = await this.db
      .updateTable('users')
      .set({ password_update_required: true })
      .where('id', '=', userId)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  lift(userId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('users')
        .set({ suspended_at: null, locked_at: null, password_update_required: false })
        .where('id', '=', userId)
        .returning('id')
        .executeTakeFirst();
      if (!row) return false;
      await trx
        .updateTable('classifications')
        .set({
          lifted_at: sql`now()`,
          appeal_status: sql`CASE WHEN appeal_id IS NULL THEN NULL ELSE ${AppealStatus.CLASSIFICATION_INVALIDATED}::int END`,
        })
        .where('user_id', '=', userId)
        .where('lifted_at', 'is', null)
        .execute();
      return true;
    });
  }

  openClassifications(userId: string): Promise<ClassificationRow[]> {
    return this.db
      .selectFrom('classifications')
      .select(['id', 'action_type', 'description', 'created_at', 'appeal_status'])
      .where('user_id', '=', userId)
      .where('lifted_at', 'is', null)
      .orderBy('id')
      .execute();
  }

  async requestReview(userId: string, classificationId: string, appealId: string, signal: number, input: string): Promise<ReviewOutcome> {
    // One appeal per classification: a second request finds the first's id and keeps it.
    const row = await this.db
      .updateTable('classifications')
      .set({
        appeal_id: sql`coalesce(appeal_id, ${appealId}::bigint)`,
        appeal_status: sql`coalesce(appeal_status, ${AppealStatus.REVIEW_PENDING}::int)`,
        appeal_signal: sql`coalesce(appeal_signal, ${signal}::int)`,
        appeal_input: sql`coalesce(appeal_input, ${input})`,
      })
      .where('id', '=', classificationId)
      .where('user_id', '=', userId)
      .where('lifted_at', 'is', null)
      .returning('appeal_id')
      .executeTakeFirst();
    return row?.appeal_id ? { appealId: row.appeal_id } : 'unknown';
  }
}
