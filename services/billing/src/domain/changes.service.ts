import type { DomainEvent } from '@kith/platform';
import { billingError } from './errors.js';
import { Ledger, paymentUpdate, subscriptionsUpdated } from './ledger.js';
import type { CatalogueStore, Clock, SubscriptionStore, SubscriptionTx } from './ports.js';
import { addInterval, priceChange, priceItems, type ItemRequest } from './pricing.js';
import { checkItems, type ExpectedPrice } from './purchase.service.js';
import { moveForRequestedStatus, nextStatus, payable } from './status.js';
import { InvoiceStatus, PaymentStatus, SubscriptionStatus as S, type Invoice, type Plan, type Subscription } from './types.js';

export interface ModifySubscription {
  items?: ItemRequest[] | undefined;
  payment_source_id?: string | undefined;
  return_url?: string | null | undefined;
  currency?: string | undefined;
  status?: number | undefined;
  pause_duration?: number | undefined;
  expected_invoice_price?: ExpectedPrice | null | undefined;
  expected_renewal_price?: ExpectedPrice | null | undefined;
}

export interface PayInvoice {
  payment_source_id: string | null;
  currency?: string | undefined;
  return_url?: string | undefined;
}

/**
 * A user's changes to a subscription they hold: its items (an upgrade charged now, prorated; a
 * downgrade at renewal), its payment source, its status (cancel, resume, pause), paying an open
 * invoice. Each runs with the subscription locked: a second change meanwhile is 100031.
 */
export class ChangesService {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly catalogue: CatalogueStore,
    private readonly ledger: Ledger,
    private readonly clock: Clock,
  ) {}

  modify(userId: string, id: string, request: ModifySubscription): Promise<Subscription> {
    return this.store.change(userId, id, async (tx) => {
      const events: DomainEvent[] = [subscriptionsUpdated(userId)];
      if (request.currency && request.currency !== tx.subscription.currency) throw billingError('INVALID_SUBSCRIPTION');
      if (request.payment_source_id) {
        await this.sourceOf(userId, request.payment_source_id);
        await tx.update({ payment_source_id: request.payment_source_id });
      }
      if (request.items) await this.changeItems(tx, request, events);
      else if (request.expected_invoice_price || request.expected_renewal_price) await this.checkRenewalPrice(tx, request);
      if (request.status !== undefined) await this.moveStatus(tx, request);
      await tx.emit(events);
      return tx.subscription;
    });
  }

  /** Delete Subscription: canceled at the end of the paid period (an unpaid one ends now). */
  async cancel(userId: string, id: string): Promise<void> {
    await this.store.change(userId, id, async (tx) => {
      await this.applyCancel(tx);
      await tx.emit([subscriptionsUpdated(userId)]);
    });
  }

  async pay(userId: string, id: string, invoiceId: string, request: PayInvoice): Promise<Subscription> {
    return this.store.change(userId, id, async (tx) => {
      const invoice = await tx.invoice(invoiceId);
      if (!invoice) throw billingError('UNKNOWN_INVOICE');
      if (invoice.status !== InvoiceStatus.OPEN) throw billingError('INVALID_PAYMENT');
      if (!payable(tx.subscription.status)) throw billingError('INVALID_SUBSCRIPTION');
      if (request.currency && request.currency !== invoice.currency) throw billingError('INVALID_PAYMENT');
      const sourceId = request.payment_source_id ?? tx.subscription.payment_source_id;
      if (!sourceId) throw billingError('PAYMENT_SOURCE_REQUIRED');
      await this.sourceOf(userId, sourceId);
      const now = this.clock.now();
      // A purchase that waited for the customer's confirmation may have it by now.
      const pending = await tx.pendingPayment();
      if (pending?.gateway_payment_id && (await this.ledger.retrieve(pending.gateway_payment_id)).status === 'succeeded') {
        await tx.setPayment(pending.id, { status: PaymentStatus.COMPLETED, error_code: null });
        await this.settle(tx, invoice, now, [paymentUpdate(userId, { ...pending, status: PaymentStatus.COMPLETED })]);
        return tx.subscription;
      }
      if (pending) await tx.setPayment(pending.id, { status: PaymentStatus.CANCELED });
      const paymentId = this.ledger.newId();
      const { result, payment } = await this.ledger.charge(tx.subscription, invoice, sourceId, {
        paymentId,
        key: `kith_payment_${paymentId}`,
        offSession: false,
        returnUrl: request.return_url,
        description: await this.describe(tx.subscription),
        now,
      });
      await tx.insertPayment(payment);
      if (result.status === 'declined') {
        await tx.emit([paymentUpdate(userId, payment)]);
        throw billingError('CARD_DECLINED', { payment_id: paymentId });
      }
      if (result.status !== 'succeeded') {
        await tx.emit([paymentUpdate(userId, payment)]);
        throw billingError('CONFIRMATION_REQUIRED', { payment_id: paymentId });
      }
      if (sourceId !== tx.subscription.payment_source_id) await tx.update({ payment_source_id: sourceId });
      await this.settle(tx, invoice, now, [paymentUpdate(userId, payment)]);
      return tx.subscription;
    });
  }

  /** An invoice paid: the subscription is active for the invoice's period, its slots granted. */
  async settle(tx: SubscriptionTx, invoice: Invoice, now: Date, events: DomainEvent[]): Promise<void> {
    const s = tx.subscription;
    await tx.setInvoiceStatus(invoice.id, InvoiceStatus.PAID);
    const plans = await this.catalogue.plans(s.items.map((i) => i.plan_id));
    // A first period that waited for payment starts when it is paid.
    const period =
      s.status === S.UNPAID
        ? { start: now, end: addInterval(now, ...intervalOf(plans, s)) }
        : { start: invoice.period_start, end: invoice.period_end };
    await tx.update({
      status: nextStatus(s.status, 'pay'),
      current_period_start: period.start,
      current_period_end: period.end,
      streak_started_at: s.streak_started_at ?? now,
      failed_renewals: 0,
      pause_ends_at: null,
      next_action_at: period.end,
    });
    await this.ledger.reconcile(tx, plans);
    await tx.emit([subscriptionsUpdated(s.user_id), ...events]);
  }

  private async changeItems(tx: SubscriptionTx, request: ModifySubscription, events: DomainEvent[]): Promise<void> {
    const s = tx.subscription;
    if (s.status !== S.ACTIVE) throw billingError('INVALID_SUBSCRIPTION');
    const items = request.items!;
    if (items.length === 0) throw billingError('ITEMS_REQUIRED');
    const plans = await this.catalogue.plans([...items, ...s.items].map((i) => i.plan_id));
    checkItems(new Map([...plans].filter(([id]) => items.some((i) => i.plan_id === id))), items);
    const now = this.clock.now();
    const current = priceItems(plans, s.items, s.currency);
    const next = priceItems(plans, items, s.currency);
    checkExpected(request.expected_renewal_price, s.currency, next.total);
    const sameInterval =
      intervalOf(plans, s).join() === [plans.get(items[0]!.plan_id)!.interval, plans.get(items[0]!.plan_id)!.interval_count].join();
    if (!sameInterval || next.total < current.total) {
      // A downgrade or another billing period takes effect at renewal; nothing is charged now.
      checkExpected(request.expected_invoice_price, s.currency, 0);
      await tx.update({ renewal_mutations: { items: items.map((i) => ({ plan_id: i.plan_id, quantity: i.quantity })) } });
      return;
    }
    const change = priceChange(plans, s.items, items, s.currency, { start: s.current_period_start, end: s.current_period_end }, now);
    checkExpected(request.expected_invoice_price, s.currency, change.total);
    const invoice = this.ledger.invoice(s, change, { start: now, end: s.current_period_end }, 'change');
    await tx.insertInvoice(invoice);
    const sourceId = request.payment_source_id ?? s.payment_source_id;
    if (change.total > 0) {
      if (!sourceId) throw billingError('PAYMENT_SOURCE_REQUIRED');
      const paymentId = this.ledger.newId();
      const { result, payment } = await this.ledger.charge(s, invoice, sourceId, {
        paymentId,
        key: `kith_payment_${paymentId}`,
        offSession: false,
        returnUrl: request.return_url ?? undefined,
        description: next.lines.map((l) => plans.get(l.plan_id)!.name).join(', '),
        now,
      });
      if (result.status !== 'succeeded')
        throw result.status === 'declined'
          ? billingError('CARD_DECLINED', { payment_id: paymentId })
          : billingError('CONFIRMATION_REQUIRED', { payment_id: paymentId });
      await tx.insertPayment(payment);
      events.push(paymentUpdate(s.user_id, payment));
    }
    await tx.setInvoiceStatus(invoice.id, InvoiceStatus.PAID);
    await tx.replaceItems(items.map((i) => ({ id: this.ledger.newId(), plan_id: i.plan_id, quantity: i.quantity })));
    await tx.update({ renewal_mutations: null });
    await this.ledger.reconcile(tx, plans);
  }

  private async checkRenewalPrice(tx: SubscriptionTx, request: ModifySubscription): Promise<void> {
    const s = tx.subscription;
    const items = s.renewal_mutations?.items ?? s.items;
    const plans = await this.catalogue.plans(items.map((i) => i.plan_id));
    checkExpected(request.expected_renewal_price, s.currency, priceItems(plans, items, s.currency).total);
    checkExpected(request.expected_invoice_price, s.currency, 0);
  }

  private async moveStatus(tx: SubscriptionTx, request: ModifySubscription): Promise<void> {
    const s = tx.subscription;
    const move = moveForRequestedStatus(request.status!);
    if (move === 'cancel') return this.applyCancel(tx);
    if (move === 'pause') {
      if (request.pause_duration === undefined) throw billingError('INVALID_SUBSCRIPTION');
      await tx.update({ status: nextStatus(s.status, 'pause'), pause_duration_days: request.pause_duration });
      return;
    }
    const to = nextStatus(s.status, 'resume');
    if (s.status === S.PAUSED) {
      // A paused subscription resumes with a new period, paid now.
      const plans = await this.catalogue.plans(s.items.map((i) => i.plan_id));
      const now = this.clock.now();
      const invoice = this.ledger.invoice(
        s,
        priceItems(plans, s.items, s.currency),
        { start: now, end: addInterval(now, ...intervalOf(plans, s)) },
        'renewal',
      );
      await tx.insertInvoice(invoice);
      if (!s.payment_source_id) throw billingError('PAYMENT_SOURCE_REQUIRED');
      const paymentId = this.ledger.newId();
      const { result, payment } = await this.ledger.charge(s, invoice, s.payment_source_id, {
        paymentId,
        key: `kith_payment_${paymentId}`,
        offSession: false,
        description: await this.describe(s),
        now,
      });
      if (result.status !== 'succeeded')
        throw billingError(result.status === 'declined' ? 'CARD_DECLINED' : 'CONFIRMATION_REQUIRED', { payment_id: paymentId });
      await tx.insertPayment(payment);
      await this.settle(tx, invoice, now, [paymentUpdate(s.user_id, payment)]);
      return;
    }
    await tx.update({ status: to, canceled_at: null, pause_duration_days: null, next_action_at: s.current_period_end });
    await this.ledger.reconcile(tx, await this.catalogue.plans(s.items.map((i) => i.plan_id)));
  }

  private async applyCancel(tx: SubscriptionTx): Promise<void> {
    const s = tx.subscription;
    const to = nextStatus(s.status, 'cancel');
    const now = this.clock.now();
    await tx.update({
      status: to,
      canceled_at: now,
      pause_duration_days: null,
      next_action_at: to === S.ENDED ? null : s.current_period_end,
    });
    if (to === S.ENDED) await this.ledger.reconcile(tx, await this.catalogue.plans(s.items.map((i) => i.plan_id)));
  }

  private async sourceOf(userId: string, id: string) {
    try {
      return await this.ledger.source(userId, id);
    } catch {
      throw billingError('INVALID_PAYMENT_SOURCE');
    }
  }

  private async describe(s: Subscription): Promise<string> {
    const plans = await this.catalogue.plans(s.items.map((i) => i.plan_id));
    return s.items.map((i) => plans.get(i.plan_id)?.name ?? i.plan_id).join(', ');
  }
}

export function intervalOf(plans: ReadonlyMap<string, Plan>, s: { items: { plan_id: string }[] }): [Plan['interval'], number] {
  const plan = plans.get(s.items[0]!.plan_id)!;
  return [plan.interval, plan.interval_count];
}

function checkExpected(expected: ExpectedPrice | null | undefined, currency: string, amount: number): void {
  if (expected && (expected.currency !== currency || expected.amount !== amount))
    throw billingError('PRICE_MISMATCH', { expected, actual: { currency, amount } });
}
