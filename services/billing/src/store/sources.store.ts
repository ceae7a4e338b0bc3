import { sql, type DomainEvent, type Kysely, type Outbox } from '@kith/platform';
import type { Selectable, Transaction } from 'kysely';
import type { NewPaymentSource, PaymentSourceStore } from '../domain/ports.js';
import type { BillingAddress, PaymentSource } from '../domain/types.js';
import type { BillingDatabase, PaymentSourcesTable } from './schema.js';

const toSource = (r: Selectable<PaymentSourcesTable>): PaymentSource => ({
  id: r.id,
  user_id: r.user_id,
  type: r.type,
  payment_gateway: r.payment_gateway,
  gateway_source_id: r.gateway_source_id,
  brand: r.brand,
  last_4: r.last_4,
  expires_month: r.expires_month,
  expires_year: r.expires_year,
  country: r.country,
  billing_address: r.billing_address as unknown as BillingAddress,
  is_default: r.is_default,
  invalid: r.invalid,
  flags: r.flags,
  deleted_at: r.deleted_at,
});

export class PgPaymentSourceStore implements PaymentSourceStore {
  constructor(
    private readonly db: Kysely<BillingDatabase>,
    private readonly outbox: Outbox,
  ) {}

  async customerOf(userId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('customers').select('gateway_customer_id').where('user_id', '=', userId).executeTakeFirst();
    return row?.gateway_customer_id;
  }

  async saveCustomer(userId: string, customerId: string): Promise<string> {
    await this.db
      .insertInto('customers')
      .values({ user_id: userId, gateway_customer_id: customerId })
      .onConflict((oc) => oc.column('user_id').doNothing())
      .execute();
    return (await this.customerOf(userId))!;
  }

  async list(userId: string): Promise<PaymentSource[]> {
    const rows = await this.db
      .selectFrom('payment_sources')
      .selectAll()
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .execute();
    return rows.map(toSource);
  }

  async get(userId: string, id: string): Promise<PaymentSource | undefined> {
    const row = await this.db
      .selectFrom('payment_sources')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row && toSource(row);
  }

  add(source: NewPaymentSource, events: (s: PaymentSource) => DomainEvent[]): Promise<PaymentSource> {
    return this.inUserTx(source.user_id, async (trx) => {
      const existing = await trx
        .selectFrom('payment_sources')
        .select('id')
        .where('user_id', '=', source.user_id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      const row = await trx
        .insertInto('payment_sources')
        .values({ ...source, billing_address: JSON.stringify(source.billing_address), is_default: !existing })
        .returningAll()
        .executeTakeFirstOrThrow();
      const added = toSource(row);
      await this.outbox.enqueue(trx, events(added));
      return added;
    });
  }

  update(
    userId: string,
    id: string,
    patch: { billing_address?: BillingAddress; is_default?: boolean; expires_month?: number; expires_year?: number },
    events: (s: PaymentSource) => DomainEvent[],
  ): Promise<PaymentSource | undefined> {
    return this.inUserTx(userId, async (trx) => {
      if (patch.is_default === true)
        await trx.updateTable('payment_sources').set({ is_default: false }).where('user_id', '=', userId).where('id', '!=', id).execute();
      const { billing_address, ...rest } = patch;
      const row = await trx
        .updateTable('payment_sources')
        .set({ ...rest, ...(billing_address ? { billing_address: JSON.stringify(billing_address) } : {}) })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      const updated = toSource(row);
      await this.outbox.enqueue(trx, events(updated));
      return updated;
    });
  }

  remove(userId: string, id: string, events: (s: PaymentSource) => DomainEvent[]): Promise<PaymentSource | undefined> {
    return this.inUserTx(userId, async (trx) => {
      const row = await trx
        .updateTable('payment_sources')
        .set({ deleted_at: new Date(), is_default: false })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      const removed = toSource(row);
      await this.outbox.enqueue(trx, events(removed));
      return removed;
    });
  }

  /** One user's sources change one at a time (which one is the default stays consistent). */
  private inUserTx<T>(userId: string, fn: (trx: Transaction<BillingDatabase>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(1, hashtext(${userId}))`.execute(trx);
      return fn(trx);
    });
  }
}
