import { sql, type Kysely } from 'kysely';
import type { StreamingAccount } from '../domain/streaming/ports.js';
import type { Grant, StreamingStorePort } from '../domain/streaming/streaming.service.js';
import type { IntegrationsDatabase } from './schema.js';

/** What streaming integrations learned from their provider, and whom they gave their role. */
export class PgStreamingStore implements StreamingStorePort {
  constructor(private readonly db: Kysely<IntegrationsDatabase>) {}

  async syncSubscribers(integrationId: string, current: StreamingAccount[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (current.length > 0)
        await trx
          .insertInto('integration_subscribers')
          .values(current.map((a) => ({ integration_id: integrationId, account_id: a.id, account_name: a.name, lapsed_at: null })))
          .onConflict((oc) =>
            oc.columns(['integration_id', 'account_id']).doUpdateSet({ account_name: sql`excluded.account_name`, lapsed_at: null }),
          )
          .execute();
      // Missing from this sync for the first time: the grace period starts now.
      let lapse = trx
        .updateTable('integration_subscribers')
        .set({ lapsed_at: sql`now()` })
        .where('integration_id', '=', integrationId)
        .where('lapsed_at', 'is', null);
      if (current.length > 0)
        lapse = lapse.where(
          'account_id',
          'not in',
          current.map((a) => a.id),
        );
      await lapse.execute();
    });
  }

  async lapsed(integrationId: string): Promise<Map<string, Date>> {
    const rows = await this.db
      .selectFrom('integration_subscribers')
      .select(['account_id', 'lapsed_at'])
      .where('integration_id', '=', integrationId)
      .where('lapsed_at', 'is not', null)
      .execute();
    return new Map(rows.map((r) => [r.account_id, r.lapsed_at!]));
  }

  async isCurrentSubscriber(integrationId: string, accountIds: string[]): Promise<string | undefined> {
    if (accountIds.length === 0) return undefined;
    const row = await this.db
      .selectFrom('integration_subscribers')
      .select('account_id')
      .where('integration_id', '=', integrationId)
      .where('account_id', 'in', accountIds)
      .where('lapsed_at', 'is', null)
      .executeTakeFirst();
    return row?.account_id;
  }

  grants(integrationId: string): Promise<Grant[]> {
    return this.db.selectFrom('integration_grants').select(['user_id', 'account_id']).where('integration_id', '=', integrationId).execute();
  }

  async addGrant(integrationId: string, userId: string, accountId: string): Promise<void> {
    await this.db
      .insertInto('integration_grants')
      .values({ integration_id: integrationId, user_id: userId, account_id: accountId })
      .onConflict((oc) => oc.columns(['integration_id', 'user_id']).doUpdateSet({ account_id: accountId }))
      .execute();
  }

  async removeGrant(integrationId: string, userId: string): Promise<void> {
    await this.db.deleteFrom('integration_grants').where('integration_id', '=', integrationId).where('user_id', '=', userId).execute();
  }
}
