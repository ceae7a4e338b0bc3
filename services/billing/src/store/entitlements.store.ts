import { sql, type Kysely } from '@kith/platform';
import type { CreditsStore } from '../domain/ports.js';
import type { Credit, DiscountOffer } from '../domain/pricing.js';
import type { Entitlement, EntitlementStore } from '../domain/promotions.service.js';
import type { BillingDatabase } from './schema.js';

export class PgEntitlementStore implements EntitlementStore, CreditsStore {
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

  async credits(userId: string, now: Date): Promise<Credit[]> {
    const { rows } = await sql<Credit>`SELECT id::text, plan_id::text FROM entitlements
      WHERE user_id = ${userId} AND plan_id IS NOT NULL AND NOT consumed AND starts_at <= ${now} AND (ends_at IS NULL OR ends_at > ${now})
      ORDER BY id`.execute(this.db);
    return rows;
  }

  async discountOffer(userId: string, id: string): Promise<DiscountOffer | undefined> {
    const { rows } =
      await sql<DiscountOffer>`SELECT id::text, discount_id::text, amount, plan_ids::text[] AS plan_ids, expires_at, applied_at
      FROM user_discount_offers WHERE id = ${id} AND user_id = ${userId}`.execute(this.db);
    return rows[0];
  }
}
