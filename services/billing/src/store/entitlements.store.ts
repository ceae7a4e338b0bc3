import type { Kysely } from '@kith/platform';
import type { Entitlement, EntitlementStore } from '../domain/promotions.service.js';
import type { BillingDatabase } from './schema.js';

export class PgEntitlementStore implements EntitlementStore {
  constructor(private readonly db: Kysely<BillingDatabase>) {}

  async grantOnce(e: Entitlement): Promise<boolean> {
    const row = await this.db
      .insertInto('entitlements')
      .values(e)
      .onConflict((oc) => oc.column('subscription_id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }
}
