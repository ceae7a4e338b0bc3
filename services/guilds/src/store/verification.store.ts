import { sql } from '@kith/platform';
import type { VerificationRepository } from '../domain/ports.js';
import type { JoinRequestRecord, VerificationForm } from '../domain/records.js';
import type { Db } from './guilds.store.js';

/** The SQL of member verification forms and join requests. */
export class PgVerification implements VerificationRepository {
  constructor(private readonly db: Db) {}

  async form(guildId: string): Promise<VerificationForm | undefined> {
    const row = await this.db.selectFrom('member_verification_forms').selectAll().where('guild_id', '=', guildId).executeTakeFirst();
    return row && { ...row, form_fields: row.form_fields as unknown[] };
  }

  async saveForm(guildId: string, changes: { description?: string | null; form_fields?: unknown[] }): Promise<VerificationForm> {
    const fields = changes.form_fields === undefined ? undefined : JSON.stringify(changes.form_fields);
    const row = await this.db
      .insertInto('member_verification_forms')
      .values({ guild_id: guildId, description: changes.description ?? null, ...(fields ? { form_fields: fields } : {}) })
      .onConflict((oc) =>
        oc.column('guild_id').doUpdateSet({
          version: sql<Date>`now()`,
          ...(changes.description !== undefined ? { description: changes.description } : {}),
          ...(fields ? { form_fields: fields } : {}),
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...row, form_fields: row.form_fields as unknown[] };
  }

  async lockJoinRequest(guildId: string, userId: string): Promise<JoinRequestRecord | undefined> {
    const row = await this.db
      .selectFrom('guild_join_requests')
      .select(['id', 'guild_id', 'user_id', 'status', 'created_at'])
      .where('guild_id', '=', guildId)
      .where('user_id', '=', userId)
      .forUpdate()
      .executeTakeFirst();
    return row as JoinRequestRecord | undefined;
  }

  async submitJoinRequest(id: string, status: JoinRequestRecord['status'], responses: unknown[]): Promise<JoinRequestRecord> {
    const row = await this.db
      .updateTable('guild_join_requests')
      .set({ status, form_responses: JSON.stringify(responses) })
      .where('id', '=', id)
      .returning(['id', 'guild_id', 'user_id', 'status', 'created_at'])
      .executeTakeFirstOrThrow();
    return row as JoinRequestRecord;
  }

  async startJoinRequest(request: Pick<JoinRequestRecord, 'id' | 'guild_id' | 'user_id'>): Promise<JoinRequestRecord> {
    const row = await this.db
      .insertInto('guild_join_requests')
      .values({ ...request, status: 'STARTED' })
      .onConflict((oc) =>
        oc
          .columns(['guild_id', 'user_id'])
          .doUpdateSet({ id: request.id, status: 'STARTED', created_at: sql<Date>`now()`, form_responses: null }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return row as JoinRequestRecord;
  }
}
