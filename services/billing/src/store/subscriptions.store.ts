import { OUTBOX_CHANNEL, sql, type DomainEvent, type Kysely, type Outbox } from '@kith/platform';
import type { Transaction } from 'kysely';
import { billingError } from '../domain/errors.js';
import type {
  ChargeRequest,
  Claim,
  NewSubscription,
  OpenPayment,
  PurchaseContext,
  PurchaseOutcome,
  SlotRecord,
  SubscriptionPatch,
  SubscriptionQuery,
  SubscriptionStore,
  SubscriptionTx,
} from '../domain/ports.js';
import { SubscriptionStatus, type Invoice, type InvoiceLine, type Payment, type Subscription } from '../domain/types.js';
import type { BillingDatabase } from './schema.js';

export type SubscriptionRow = Omit<Subscription, 'items'> & { items: Subscription['items'] | null };

/** Every column of a subscription with its items, as one row. */
export const SUBSCRIPTION_COLUMNS = sql`s.id, s.user_id, s.type, s.status, s.currency, s.payment_gateway, s.payment_source_id,
  s.current_period_start, s.current_period_end, s.streak_started_at, s.canceled_at, s.trial_id, s.trial_ends_at,
  s.country_code, s.metadata, s.renewal_mutations, s.pause_duration_days, s.pause_ends_at, s.failed_renewals,
  s.next_action_at, s.created_at,
  (SELECT json_agg(json_build_object('id', i.id::text, 'plan_id', i.plan_id::text, 'quantity', i.quantity) ORDER BY i.id)
     FROM subscription_items i WHERE i.subscription_id = s.id) AS items`;

export const toSubscription = (r: SubscriptionRow): Subscription => ({
  ...r,
  status: r.status,
  items: r.items ?? [],
  metadata: r.metadata ?? {},
  payment_source_id: r.payment_source_id === null ? null : String(r.payment_source_id),
  trial_id: r.trial_id === null ? null : String(r.trial_id),
});

export const toInvoice = (r: {
  id: string;
  subscription_id: string;
  status: number;
  currency: string;
  subtotal: number;
  tax: number;
  total: number;
  tax_inclusive: boolean;
  items: unknown;
  period_start: Date;
  period_end: Date;
  reason: string;
}): Invoice => ({
  id: r.id,
  subscription_id: r.subscription_id,
  status: r.status as Invoice['status'],
  currency: r.currency,
  subtotal: r.subtotal,
  tax: r.tax,
  total: r.total,
  tax_inclusive: r.tax_inclusive,
  items: r.items as InvoiceLine[],
  period_start: r.period_start,
  period_end: r.period_end,
  reason: r.reason as Invoice['reason'],
  exponent: 2,
});

export const toPayment = (r: Payment): Payment => ({ ...r });

type OpenPaymentRow = Omit<OpenPayment, 'leased'> & { leased: boolean | null; lease_until?: Date | null };

/** A recorded payment as the domain sees it (its lease as a flag, without the column). */
const toOpenPayment = (r: OpenPaymentRow): OpenPayment => {
  const { lease_until: _lease, ...rest } = r;
  void _lease;
  return { ...rest, leased: r.leased === true };
};

/** A payment's columns, and whether someone holds its lease now. */
const OPEN_PAYMENT = sql`p.*, (p.lease_until IS NOT NULL AND p.lease_until > now()) AS leased`;

export class PgSubscriptionStore implements SubscriptionStore {
  constructor(
    protected readonly db: Kysely<BillingDatabase>,
    protected readonly outbox: Outbox,
  ) {}

  async list(userId: string, query: SubscriptionQuery): Promise<Subscription[]> {
    const { rows } = await sql<SubscriptionRow>`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s
      WHERE s.user_id = ${userId}
        ${query.includeInactive ? sql`` : sql`AND s.status <> ${SubscriptionStatus.ENDED}`}
        ${query.excludeUnpaid ? sql`AND s.status <> ${SubscriptionStatus.UNPAID}` : sql``}
        ${query.type !== undefined ? sql`AND s.type = ${query.type}` : sql``}
      ORDER BY s.id
      ${query.limit !== undefined ? sql`LIMIT ${query.limit}` : sql``}`.execute(this.db);
    return rows.map(toSubscription);
  }

  async get(userId: string, id: string): Promise<Subscription | undefined> {
    const { rows } = await sql<SubscriptionRow>`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s
      WHERE s.id = ${id} AND s.user_id = ${userId}`.execute(this.db);
    return rows[0] && toSubscription(rows[0]);
  }

  async purchaseContext(userId: string, sourceId: string | undefined, now: Date, premium: boolean): Promise<PurchaseContext> {
    const { rows } = await sql<{
      credits: { id: string; plan_id: string }[];
      source_id: string | null;
      gateway_source_id: string | null;
      invalid: boolean | null;
      customer_id: string | null;
      live_premium: boolean;
    }>`SELECT
        (SELECT coalesce(json_agg(json_build_object('id', e.id::text, 'plan_id', e.plan_id::text) ORDER BY e.id), '[]'::json)
          FROM entitlements e WHERE e.user_id = ${userId} AND e.plan_id IS NOT NULL AND NOT e.consumed AND e.starts_at <= ${now}
            AND (e.ends_at IS NULL OR e.ends_at > ${now})) AS credits,
        ps.id::text AS source_id, ps.gateway_source_id, ps.invalid,
        (SELECT c.gateway_customer_id FROM customers c WHERE c.user_id = ${userId}) AS customer_id,
        ${
          premium
            ? sql`EXISTS (SELECT 1 FROM subscriptions s JOIN subscription_items i ON i.subscription_id = s.id
                JOIN plans p ON p.id = i.plan_id JOIN skus k ON k.id = p.sku_id
                WHERE s.user_id = ${userId} AND s.status <> ${SubscriptionStatus.ENDED} AND k.premium_type > 0)`
            : sql`false`
        } AS live_premium
      FROM (SELECT 1) AS one
        LEFT JOIN payment_sources ps ON ps.id = ${sourceId ?? null} AND ps.user_id = ${userId} AND ps.deleted_at IS NULL`.execute(this.db);
    const r = rows[0]!;
    return {
      credits: r.credits,
      source: r.source_id ? { id: r.source_id, gateway_source_id: r.gateway_source_id!, invalid: r.invalid === true } : undefined,
      customerId: r.customer_id ?? undefined,
      livePremium: r.live_premium,
    };
  }

  async latestInvoice(subscriptionId: string): Promise<Invoice | undefined> {
    const row = await this.db
      .selectFrom('invoices')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row && toInvoice(row);
  }

  async invoices(subscriptionId: string): Promise<Invoice[]> {
    const rows = await this.db
      .selectFrom('invoices')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toInvoice);
  }

  async payment(id: string): Promise<Payment | undefined> {
    const row = await this.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toPayment(row as Payment);
  }

  async claim(
    userId: string,
    loadId: string,
    requestHash: string,
    paymentId: string,
    leaseMs: number,
    request?: unknown,
    chargeRequest?: ChargeRequest | null,
  ): Promise<Claim> {
    // One round trip: claim_purchase (migration 0006) takes the user's lock, reads and writes.
    const { rows } = await sql<{ kind: Claim['kind']; payment_id: string | null; charge_request: ChargeRequest | null; outcome: unknown }>`
      SELECT kind, payment_id::text, charge_request, outcome FROM claim_purchase(${userId}, ${loadId}, ${requestHash}, ${paymentId},
        ${`${leaseMs} milliseconds`}::interval, ${request === undefined ? null : JSON.stringify(request)}::jsonb,
        ${chargeRequest ? JSON.stringify(chargeRequest) : null}::jsonb)`.execute(this.db);
    const r = rows[0]!;
    switch (r.kind) {
      case 'claimed':
        return { kind: 'claimed', paymentId: r.payment_id!, chargeRequest: r.charge_request ?? undefined };
      case 'done':
        return { kind: 'done', outcome: r.outcome as PurchaseOutcome };
      default:
        return { kind: r.kind } as Claim;
    }
  }

  async saveChargeRequest(userId: string, loadId: string, request: ChargeRequest): Promise<void> {
    await sql`UPDATE purchases SET charge_request = ${JSON.stringify(request)}::jsonb
      WHERE user_id = ${userId} AND load_id = ${loadId} AND state = 'pending'`.execute(this.db);
  }

  async abandonedPurchases(
    limit: number,
  ): Promise<{ userId: string; loadId: string; request: unknown; paymentId: string; charged: boolean }[]> {
    const { rows } = await sql<{ user_id: string; load_id: string; request: unknown; payment_id: string; charged: boolean }>`
      SELECT user_id::text, load_id, request, payment_id::text, charge_request IS NOT NULL AS charged
      FROM purchases WHERE state = 'pending' AND lease_until <= now() AND request IS NOT NULL ORDER BY lease_until LIMIT ${limit}`.execute(
      this.db,
    );
    return rows.map((r) => ({ userId: r.user_id, loadId: r.load_id, request: r.request, paymentId: r.payment_id, charged: r.charged }));
  }

  async release(userId: string, loadId: string): Promise<void> {
    await sql`UPDATE purchases SET lease_until = now() WHERE user_id = ${userId} AND load_id = ${loadId} AND state = 'pending'`.execute(
      this.db,
    );
  }

  async dropPurchase(userId: string, loadId: string): Promise<void> {
    await sql`DELETE FROM purchases WHERE user_id = ${userId} AND load_id = ${loadId} AND state = 'pending' AND lease_until <= now()`.execute(
      this.db,
    );
  }

  async completePurchase(
    userId: string,
    loadId: string,
    created: NewSubscription,
    outcome: PurchaseOutcome,
    events: (s: Subscription) => DomainEvent[],
  ): Promise<Subscription> {
    // One statement (it was a transaction of five round trips), no user lock: finishing the
    // pending purchase row (`fin`) is the guard (one attempt finishes it); every row and event is
    // written only when it did, and all of them commit together.
    const { items, ...s } = created.subscription;
    const inv = created.invoice;
    const p = created.payment;
    const made: Subscription = { ...s, items, created_at: s.current_period_start, failed_renewals: 0 };
    const emitted = events(made);
    const itemRows = items.map((i) => sql`(${i.id}::bigint, ${i.plan_id}::bigint, ${i.quantity}::int)`);
    const slotRows = created.slots.map((id) => sql`(${id}::bigint)`);
    const { rows } = await sql<{ created_at: Date; failed_renewals: number }>`WITH
      fin AS (UPDATE purchases SET state = 'done', outcome = ${JSON.stringify(outcome)}::jsonb, subscription_id = ${s.id}
        WHERE user_id = ${userId} AND load_id = ${loadId} AND state = 'pending' RETURNING 1),
      sub AS (INSERT INTO subscriptions (id, user_id, type, status, currency, payment_gateway, payment_source_id,
          current_period_start, current_period_end, streak_started_at, canceled_at, trial_id, trial_ends_at, country_code,
          metadata, renewal_mutations, pause_duration_days, pause_ends_at, next_action_at, created_at, updated_at)
        SELECT ${s.id}, ${s.user_id}, ${s.type}, ${s.status}, ${s.currency}, ${s.payment_gateway}, ${s.payment_source_id},
          ${s.current_period_start}, ${s.current_period_end}, ${s.streak_started_at}, ${s.canceled_at}, ${s.trial_id}, ${s.trial_ends_at},
          ${s.country_code}, ${JSON.stringify(s.metadata)}::jsonb, ${s.renewal_mutations ? JSON.stringify(s.renewal_mutations) : null}::jsonb,
          ${s.pause_duration_days}, ${s.pause_ends_at}, ${s.next_action_at}, ${s.current_period_start}, ${s.current_period_start}
        FROM fin RETURNING created_at, failed_renewals),
      items AS (INSERT INTO subscription_items (id, subscription_id, plan_id, quantity)
        SELECT v.id, ${s.id}::bigint, v.plan_id, v.quantity FROM fin, (VALUES ${sql.join(itemRows)}) AS v (id, plan_id, quantity)),
      invoice AS (INSERT INTO invoices (id, subscription_id, user_id, status, currency, subtotal, tax, total, tax_inclusive, items,
          period_start, period_end, reason, created_at)
        SELECT ${inv.id}, ${s.id}, ${userId}, ${inv.status}, ${inv.currency}, ${inv.subtotal}, ${inv.tax}, ${inv.total}, ${inv.tax_inclusive},
          ${JSON.stringify(inv.items)}::jsonb, ${inv.period_start}, ${inv.period_end}, ${inv.reason}, now() FROM fin),
      payment AS (INSERT INTO payments (id, user_id, subscription_id, invoice_id, payment_source_id, amount, tax, tax_inclusive, currency,
          status, description, sku_id, plan_id, gateway_payment_id, idempotency_key, error_code, created_at)
        SELECT ${p.id}, ${p.user_id}, ${p.subscription_id}, ${p.invoice_id}, ${p.payment_source_id}, ${p.amount}, ${p.tax}, ${p.tax_inclusive},
          ${p.currency}, ${p.status}, ${p.description}, ${p.sku_id}, ${p.plan_id}, ${p.gateway_payment_id}, ${p.idempotency_key}, ${p.error_code},
          ${p.created_at} FROM fin)
      ${
        slotRows.length > 0
          ? sql`, slots AS (INSERT INTO premium_guild_slots (id, user_id, subscription_id)
              SELECT v.id, ${userId}::bigint, ${s.id}::bigint FROM fin, (VALUES ${sql.join(slotRows)}) AS v (id))`
          : sql``
      }
      ${
        created.credits && created.credits.length > 0
          ? sql`, credits AS (UPDATE entitlements SET consumed = true, consumed_invoice_id = ${inv.id}
              WHERE id IN (${sql.join(created.credits)}) AND user_id = ${userId} AND NOT consumed AND EXISTS (SELECT 1 FROM fin))`
          : sql``
      }
      ${
        created.premium
          ? sql`, perks AS (INSERT INTO perk_sync (kind, target_id, since) SELECT 'user', ${userId}, clock_timestamp() FROM fin
              ON CONFLICT (kind, target_id) DO UPDATE SET since = clock_timestamp())`
          : sql``
      }
      ${emitted.length > 0 ? sql`, events AS (${this.outbox.insertWhen(emitted, sql`EXISTS (SELECT 1 FROM fin)`)})` : sql``}
      SELECT created_at, failed_renewals
        ${emitted.length > 0 ? sql`, (SELECT pg_notify(${OUTBOX_CHANNEL}, '') FROM (SELECT 1 FROM events LIMIT 1) AS one) AS woke` : sql``}
      FROM sub`.execute(this.db);
    // Another attempt finished it first: its subscription is the purchase's.
    if (!rows[0]) return this.db.transaction().execute((trx) => this.alreadyFinished(trx, userId, loadId));
    return { ...made, created_at: rows[0].created_at, failed_renewals: rows[0].failed_renewals };
  }

  failPurchase(userId: string, loadId: string, payment: Payment | null, outcome: PurchaseOutcome, events: DomainEvent[]): Promise<void> {
    return this.inUserTx(userId, async (trx) => {
      if (!(await this.finish(trx, userId, loadId, 'failed', outcome, null))) return;
      if (payment) await this.insertPayment(trx, payment);
      await this.outbox.enqueue(trx, events);
    });
  }

  /** Marks the purchase finished if it still is pending; false when another attempt finished it first. */
  private async finish(
    trx: Transaction<BillingDatabase>,
    userId: string,
    loadId: string,
    state: 'done' | 'failed',
    outcome: PurchaseOutcome,
    subscriptionId: string | null,
  ): Promise<boolean> {
    const { rows } = await sql`UPDATE purchases SET state = ${state}, outcome = ${JSON.stringify(outcome)}::jsonb,
      subscription_id = ${subscriptionId}
      WHERE user_id = ${userId} AND load_id = ${loadId} AND state = 'pending' RETURNING 1`.execute(trx);
    return rows.length > 0;
  }

  private async alreadyFinished(trx: Transaction<BillingDatabase>, userId: string, loadId: string): Promise<Subscription> {
    const row = await trx
      .selectFrom('purchases')
      .select('subscription_id')
      .where('user_id', '=', userId)
      .where('load_id', '=', loadId)
      .executeTakeFirst();
    const { rows } =
      await sql<SubscriptionRow>`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = ${row?.subscription_id ?? null}`.execute(
        trx,
      );
    if (!rows[0]) throw new Error('purchase finished without a subscription');
    return toSubscription(rows[0]);
  }

  protected async insertInvoice(trx: Transaction<BillingDatabase>, userId: string, invoice: Invoice): Promise<void> {
    await trx
      .insertInto('invoices')
      .values({
        id: invoice.id,
        subscription_id: invoice.subscription_id!,
        user_id: userId,
        status: invoice.status,
        currency: invoice.currency,
        subtotal: invoice.subtotal,
        tax: invoice.tax,
        total: invoice.total,
        tax_inclusive: invoice.tax_inclusive,
        items: JSON.stringify(invoice.items),
        period_start: invoice.period_start,
        period_end: invoice.period_end,
        reason: invoice.reason,
        created_at: new Date(),
      })
      .execute();
  }

  protected async insertPayment(trx: Transaction<BillingDatabase>, payment: Payment): Promise<void> {
    await trx.insertInto('payments').values(payment).execute();
  }

  protected async insertSlots(trx: Transaction<BillingDatabase>, userId: string, subscriptionId: string, slotIds: string[]): Promise<void> {
    if (slotIds.length === 0) return;
    await trx
      .insertInto('premium_guild_slots')
      .values(slotIds.map((id) => ({ id, user_id: userId, subscription_id: subscriptionId })))
      .execute();
  }

  change<T>(userId: string, id: string, fn: (tx: SubscriptionTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      let rows: SubscriptionRow[];
      try {
        ({ rows } = await sql<SubscriptionRow>`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s
          WHERE s.id = ${id} AND s.user_id = ${userId} FOR UPDATE OF s NOWAIT`.execute(trx));
      } catch (err) {
        // 55P03 lock_not_available: a payment or change of this subscription is under way.
        if ((err as { code?: string }).code === '55P03') throw billingError('PAYMENT_IN_PROGRESS');
        throw err;
      }
      if (!rows[0]) throw billingError('UNKNOWN_SUBSCRIPTION');
      return fn(this.tx(trx, toSubscription(rows[0])));
    });
  }

  nextDue(now: Date, fn: (tx: SubscriptionTx) => Promise<void>): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // SKIP LOCKED: replicas (and a request changing the subscription) never wait on each other;
      // a row one of them holds is left to it.
      const { rows } = await sql<SubscriptionRow>`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s
        WHERE s.next_action_at <= ${now} ORDER BY s.next_action_at LIMIT 1 FOR UPDATE OF s SKIP LOCKED`.execute(trx);
      if (!rows[0]) return false;
      await fn(this.tx(trx, toSubscription(rows[0])));
      return true;
    });
  }

  async postpone(id: string, at: Date): Promise<void> {
    await this.db.updateTable('subscriptions').set({ next_action_at: at }).where('id', '=', id).execute();
  }

  withPayment<T>(paymentId: string, fn: (tx: SubscriptionTx, payment: OpenPayment) => Promise<T>): Promise<T | undefined> {
    return this.db.transaction().execute(async (trx) => {
      // The subscription first, then the payment: the order every change takes them in.
      const { rows } = await sql<SubscriptionRow>`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s
        WHERE s.id = (SELECT subscription_id FROM payments WHERE id = ${paymentId}) FOR UPDATE OF s`.execute(trx);
      if (!rows[0]) return undefined;
      const payment = await sql<OpenPaymentRow>`SELECT ${OPEN_PAYMENT} FROM payments p WHERE p.id = ${paymentId} FOR UPDATE`.execute(trx);
      if (!payment.rows[0]) return undefined;
      return fn(this.tx(trx, toSubscription(rows[0])), toOpenPayment(payment.rows[0]));
    });
  }

  async releasePayment(paymentId: string): Promise<void> {
    await sql`UPDATE payments SET lease_until = now() WHERE id = ${paymentId} AND status = 0`.execute(this.db);
  }

  nextUnsettled(leaseMs: number): Promise<OpenPayment | undefined> {
    return this.lease(sql`status = 0 AND purpose IS NOT NULL`, leaseMs);
  }

  nextRefundDue(leaseMs: number): Promise<OpenPayment | undefined> {
    return this.lease(sql`refund_due`, leaseMs);
  }

  /** Leases the oldest payment matching `where` that nobody holds; replicas skip each other's. */
  private async lease(where: ReturnType<typeof sql>, leaseMs: number): Promise<OpenPayment | undefined> {
    const { rows } = await sql<OpenPaymentRow>`UPDATE payments p SET lease_until = now() + ${`${leaseMs} milliseconds`}::interval
      WHERE p.id = (SELECT id FROM payments WHERE ${where} AND (lease_until IS NULL OR lease_until <= now())
        ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING p.*, true AS leased`.execute(this.db);
    return rows[0] && toOpenPayment(rows[0]);
  }

  markRefunded(paymentId: string, amount: number, events: (p: Payment) => DomainEvent[]): Promise<Payment | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<Payment>`UPDATE payments SET amount_refunded = LEAST(amount, amount_refunded + ${amount}),
          status = CASE WHEN amount_refunded + ${amount} >= amount THEN 4 ELSE status END, refund_due = false, lease_until = NULL
        WHERE id = ${paymentId} AND refund_due RETURNING *`.execute(trx);
      if (!rows[0]) return undefined;
      const payment = toPayment(rows[0]);
      await this.outbox.enqueue(trx, events(payment));
      return payment;
    });
  }

  private tx(trx: Transaction<BillingDatabase>, subscription: Subscription): SubscriptionTx {
    const id = subscription.id;
    return {
      subscription,
      update: async (patch: SubscriptionPatch) => {
        const { renewal_mutations, ...rest } = patch;
        await trx
          .updateTable('subscriptions')
          .set({
            ...rest,
            ...(renewal_mutations !== undefined ? { renewal_mutations: renewal_mutations ? JSON.stringify(renewal_mutations) : null } : {}),
            updated_at: new Date(),
          })
          .where('id', '=', id)
          .execute();
        Object.assign(subscription, patch);
      },
      replaceItems: async (items) => {
        await trx.deleteFrom('subscription_items').where('subscription_id', '=', id).execute();
        await trx
          .insertInto('subscription_items')
          .values(items.map((i) => ({ id: i.id, subscription_id: id, plan_id: i.plan_id, quantity: i.quantity })))
          .execute();
        subscription.items = items;
      },
      invoice: async (invoiceId) => {
        const row = await trx
          .selectFrom('invoices')
          .selectAll()
          .where('id', '=', invoiceId)
          .where('subscription_id', '=', id)
          .executeTakeFirst();
        return row && toInvoice(row);
      },
      openInvoice: async () => {
        const row = await trx
          .selectFrom('invoices')
          .selectAll()
          .where('subscription_id', '=', id)
          .where('status', '=', 1)
          .orderBy('id', 'desc')
          .executeTakeFirst();
        return row && toInvoice(row);
      },
      insertInvoice: (invoice) => this.insertInvoice(trx, subscription.user_id, invoice),
      setInvoiceStatus: async (invoiceId, status) => {
        await trx.updateTable('invoices').set({ status }).where('id', '=', invoiceId).execute();
      },
      insertPayment: (payment) => this.insertPayment(trx, payment),
      pendingPayment: async () => {
        const row = await trx
          .selectFrom('payments')
          .selectAll()
          .where('subscription_id', '=', id)
          .where('status', '=', 0)
          // A purchase's; those a request recorded before charging are settled on their own.
          .where('purpose', 'is', null)
          .orderBy('id', 'desc')
          .executeTakeFirst();
        return row && toPayment(row as Payment);
      },
      setPayment: async (paymentId, patch) => {
        await trx.updateTable('payments').set(patch).where('id', '=', paymentId).execute();
      },
      openPayment: async () => {
        const { rows } = await sql<OpenPaymentRow>`SELECT ${OPEN_PAYMENT} FROM payments p
          WHERE p.subscription_id = ${id} AND p.status = 0 AND p.purpose IS NOT NULL`.execute(trx);
        return rows[0] && toOpenPayment(rows[0]);
      },
      recordPayment: async ({ payment: p, purpose, chargeRequest, requestHash, leaseMs }) => {
        await sql`INSERT INTO payments (id, user_id, subscription_id, invoice_id, payment_source_id, amount, tax, tax_inclusive, currency,
            status, description, sku_id, plan_id, gateway_payment_id, idempotency_key, error_code, created_at,
            purpose, charge_request, request_hash, lease_until)
          VALUES (${p.id}, ${p.user_id}, ${p.subscription_id}, ${p.invoice_id}, ${p.payment_source_id}, ${p.amount}, ${p.tax},
            ${p.tax_inclusive}, ${p.currency}, ${p.status}, ${p.description}, ${p.sku_id}, ${p.plan_id}, ${p.gateway_payment_id},
            ${p.idempotency_key}, ${p.error_code}, ${p.created_at}, ${JSON.stringify(purpose)}::jsonb, ${JSON.stringify(chargeRequest)}::jsonb,
            ${requestHash}, now() + ${`${leaseMs} milliseconds`}::interval)`.execute(trx);
      },
      takePayment: async (paymentId, leaseMs) => {
        await sql`UPDATE payments SET lease_until = now() + ${`${leaseMs} milliseconds`}::interval WHERE id = ${paymentId}`.execute(trx);
      },
      settlePayment: async (paymentId, patch) => {
        const { lookAgainMs, ...rest } = patch;
        await sql`UPDATE payments SET status = ${rest.status},
            error_code = ${rest.error_code === undefined ? sql`error_code` : sql`${rest.error_code}`},
            gateway_payment_id = ${rest.gateway_payment_id === undefined ? sql`gateway_payment_id` : sql`${rest.gateway_payment_id}`},
            refund_due = ${rest.refund_due ?? false},
            lease_until = ${lookAgainMs === undefined ? sql`NULL` : sql`now() + ${`${lookAgainMs} milliseconds`}::interval`}
          WHERE id = ${paymentId}`.execute(trx);
      },
      slots: () => slotsOf(trx, sql`s.subscription_id = ${id}`),
      addSlots: (ids) => this.insertSlots(trx, subscription.user_id, id, ids),
      removeSlots: (ids) => removeSlots(trx, ids),
      markPerks: (kind, target) => markPerks(trx, kind, target),
      emit: async (events) => void (await this.outbox.enqueue(trx, events)),
    };
  }

  /** One user's purchases and subscription changes are made one at a time. */
  protected inUserTx<T>(userId: string, fn: (trx: Transaction<BillingDatabase>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(2, hashtext(${userId}))`.execute(trx);
      return fn(trx);
    });
  }
}

/** Slots (with their live boost) matching a condition on `s` (premium_guild_slots). */
export async function slotsOf(
  db: Kysely<BillingDatabase> | Transaction<BillingDatabase>,
  where: ReturnType<typeof sql>,
): Promise<SlotRecord[]> {
  const { rows } = await sql<{
    id: string;
    user_id: string;
    subscription_id: string;
    canceled: boolean;
    cooldown_ends_at: Date | null;
    boost_id: string | null;
    guild_id: string | null;
    boost_created_at: Date | null;
  }>`SELECT s.id, s.user_id, s.subscription_id, s.canceled, s.cooldown_ends_at,
      b.id AS boost_id, b.guild_id, b.created_at AS boost_created_at
    FROM premium_guild_slots s LEFT JOIN guild_boosts b ON b.slot_id = s.id AND NOT b.ended
    WHERE ${where} ORDER BY s.id`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    user_id: r.user_id,
    subscription_id: r.subscription_id,
    canceled: r.canceled,
    cooldown_ends_at: r.cooldown_ends_at,
    boost: r.boost_id ? { id: r.boost_id, guild_id: r.guild_id!, created_at: r.boost_created_at! } : null,
  }));
}

export async function removeSlots(trx: Transaction<BillingDatabase>, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const ended = await trx
    .updateTable('guild_boosts')
    .set({ ended: true, ended_at: new Date() })
    .where('slot_id', 'in', ids)
    .where('ended', '=', false)
    .returning('guild_id')
    .execute();
  await trx.deleteFrom('premium_guild_slots').where('id', 'in', ids).execute();
  return [...new Set(ended.map((r) => r.guild_id))];
}

export async function markPerks(trx: Transaction<BillingDatabase>, kind: 'user' | 'guild', target: string): Promise<void> {
  // A mark made again moves its time: a push that read the value before it does not clear it.
  await sql`INSERT INTO perk_sync (kind, target_id, since) VALUES (${kind}, ${target}, clock_timestamp())
    ON CONFLICT (kind, target_id) DO UPDATE SET since = clock_timestamp()`.execute(trx);
}
