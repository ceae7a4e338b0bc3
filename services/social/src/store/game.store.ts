import { sql, type Kysely } from '@kith/platform';
import type { Transaction } from 'kysely';
import type { GameRelationshipRow, GameStore, GameTx } from '../domain/game-relationships.service.js';
import type { Emit } from './relationships.store.js';
import type { SocialDatabase } from './schema.js';

const toRow = (r: Omit<GameRelationshipRow, 'type'> & { type: number }): GameRelationshipRow => ({ ...r, type: r.type as 1 | 3 | 4 });

export class PgGameStore implements GameStore {
  constructor(
    private readonly db: Kysely<SocialDatabase>,
    private readonly emit: Emit,
  ) {}

  async list(userId: string): Promise<GameRelationshipRow[]> {
    return (await this.db.selectFrom('game_relationships').selectAll().where('user_id', '=', userId).orderBy('since').execute()).map(toRow);
  }

  async commonApplications(a: string, b: string): Promise<string[]> {
    const { rows } = await sql<{ application_id: string }>`
      SELECT x.application_id FROM application_authorizations x JOIN application_authorizations y USING (application_id)
      WHERE x.user_id = ${a} AND y.user_id = ${b} ORDER BY x.application_id`.execute(this.db);
    return rows.map((r) => r.application_id);
  }

  async recordAuthorization(userId: string, applicationId: string): Promise<void> {
    await this.db
      .insertInto('application_authorizations')
      .values({ user_id: userId, application_id: applicationId })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  withUsersLocked<T>(userIds: string[], fn: (tx: GameTx) => Promise<T>): Promise<T> {
    const ordered = [...new Set(userIds)].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    return this.db.transaction().execute(async (trx) => {
      for (const id of ordered) await sql`SELECT pg_advisory_xact_lock(${id}::bigint)`.execute(trx);
      return fn(this.tx(trx));
    });
  }

  private tx(trx: Transaction<SocialDatabase>): GameTx {
    return {
      blocked: async (a, b) => {
        const row = await trx
          .selectFrom('relationships')
          .select('type')
          .where('type', '=', 2)
          .where((eb) =>
            eb.or([eb.and([eb('user_id', '=', a), eb('target_id', '=', b)]), eb.and([eb('user_id', '=', b), eb('target_id', '=', a)])]),
          )
          .executeTakeFirst();
        return row !== undefined;
      },
      get: async (userId, targetId, applicationId) => {
        const row = await trx
          .selectFrom('game_relationships')
          .selectAll()
          .where('user_id', '=', userId)
          .where('target_id', '=', targetId)
          .where('application_id', '=', applicationId)
          .executeTakeFirst();
        return row && toRow(row);
      },
      put: async (row) => {
        await trx
          .insertInto('game_relationships')
          .values(row)
          .onConflict((oc) => oc.columns(['user_id', 'target_id', 'application_id']).doUpdateSet({ type: row.type, since: row.since }))
          .execute();
      },
      delete: async (userId, targetId, applicationId) => {
        let query = trx.deleteFrom('game_relationships').where('user_id', '=', userId).where('target_id', '=', targetId);
        if (applicationId) query = query.where('application_id', '=', applicationId);
        return (await query.returningAll().execute()).map(toRow);
      },
      emit: async (name, userId, data) => void (await this.emit(trx, [{ name, audience: { users: [userId] }, data }])),
    };
  }
}
