import type { DomainEvent } from '@kith/platform';
import { billingError } from './errors.js';
import { Ledger, paymentUpdate, subscriptionsUpdated } from './ledger.js';
import type { CatalogueStore, Clock, OpenPayment, PaymentPurpose, SubscriptionStore, SubscriptionTx } from './ports.js';
import { addInterval, priceChange, priceItems, type ItemRequest } from './pricing.js';
import { checkExpected, checkItems, requestHash, type ExpectedPrice } from './purchase.service.js';
import { sameItems, SettlementsService } from './settlements.service.js';
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
    private readonly settlements: SettlementsService,
    private readonly clock: Clock,
  ) {
    settlements.useInvoiceSettlement((tx, invoice, now, events) => this.settle(tx, invoice, now, events));
  }

  /**
   * Modify Subscription. A change that costs money now (an upgrade, a paused subscription
   * resumed) is recorded with its payment and committed first, charged after, and settled in a
   * second transaction (SettlementsService): a retry of the same request while that payment is
   * still pending resumes it (same gateway idempotency key) instead of charging again; another
   * change meanwhile is 100031.
   */
  async modify(userId: string, id: string, request: ModifySubscription): Promise<Subscription> {
    const hash = requestHash({ op: 'modify', ...request });
    const step = await this.store.change(userId, id, async (tx) => {
      const pending = await this.resumable(tx, hash);
      if (pending) return { charge: pending };
      const events: DomainEvent[] = [subscriptionsUpdated(userId)];
      if (request.currency && request.currency !== tx.subscription.currency) throw billingError('INVALID_SUBSCRIPTION');
      if (request.payment_source_id) {
        await this.sourceOf(userId, request.payment_source_id);
        await tx.update({ payment_source_id: request.payment_source_id });
      }
      let charge: OpenPayment | undefined;
      if (request.items) charge = await this.changeItems(tx, request, hash);
      else if (request.expected_invoice_price || request.expected_renewal_price) await this.checkRenewalPrice(tx, request);
      // A status asked with a charged change is moved once the change is paid.
      if (request.status !== undefined && !charge) charge = await this.moveStatus(tx, request, hash);
      await tx.emit(events);
      return { charge, subscription: tx.subscription };
    });
    if (!step.charge) return step.subscription!;
    SettlementsService.answer(await this.settlements.charge(step.charge));
    if (request.items && request.status !== undefined)
      return this.modify(userId, id, { status: request.status, pause_duration: request.pause_duration });
    return this.current(userId, id);
  }

  /** Delete Subscription: canceled at the end of the paid period (an unpaid one ends now). */
  async cancel(userId: string, id: string): Promise<void> {
    await this.store.change(userId, id, async (tx) => {
      await this.applyCancel(tx);
      await tx.emit([subscriptionsUpdated(userId)]);
    });
  }

  /**
   * Pay Subscription Invoice. The payment is recorded (keyed by its own id, fixed before the
   * charge) and committed, then charged and settled like a charged change.
   */
  async pay(userId: string, id: string, invoiceId: string, request: PayInvoice): Promise<Subscription> {
    const hash = requestHash({ op: 'pay', invoice: invoiceId, ...request });
    const step = await this.store.change(userId, id, async (tx): Promise<{ charge?: OpenPayment }> => {
      const pending = await this.resumable(tx, hash);
      if (pending) return { charge: pending };
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
      const waiting = await tx.pendingPayment();
      // Not confirmed: canceled at the gateway before another charge, so it can never be confirmed later.
      const stands = waiting?.gateway_payment_id ? await this.ledger.cancel(waiting.gateway_payment_id, `kith_cancel_${waiting.id}`) : null;
      if (waiting && stands?.status === 'succeeded') {
        await tx.setPayment(waiting.id, { status: PaymentStatus.COMPLETED, error_code: null });
        await this.settle(tx, invoice, now, [paymentUpdate(userId, { ...waiting, status: PaymentStatus.COMPLETED })]);
        return {};
      }
      if (waiting) await tx.setPayment(waiting.id, { status: PaymentStatus.CANCELED });
      const charge = await this.record(tx, invoice, sourceId, { kind: 'invoice', source_id: sourceId }, hash, {
        returnUrl: request.return_url,
        description: await this.describe(tx.subscription),
        now,
      });
      return { charge };
    });
    if (step.charge) SettlementsService.answer(await this.settlements.charge(step.charge));
    return this.current(userId, id);
  }

  /**
   * A payment of this subscription still pending from an earlier request: the same request
   * (retried after its asker died or the gateway did not answer) takes it over and asks the
   * gateway again with its key; anything else while it is pending is a payment in progress.
   */
  private async resumable(tx: SubscriptionTx, hash: string): Promise<OpenPayment | undefined> {
    const open = await tx.openPayment();
    if (!open) return undefined;
    if (open.leased || open.request_hash !== hash) throw billingError('PAYMENT_IN_PROGRESS', { payment_id: open.id });
    await tx.takePayment(open.id, this.settlements.options.leaseMs);
    return open;
  }

  /** Records an invoice's payment before any charge: the request the gateway will be sent, with its key. */
  private async record(
    tx: SubscriptionTx,
    invoice: Invoice,
    sourceId: string,
    purpose: PaymentPurpose,
    hash: string,
    options: { returnUrl?: string | null | undefined; description: string; now: Date },
  ): Promise<OpenPayment> {
    const { payment, request } = await this.ledger.prepare(tx.subscription, invoice, sourceId, {
      paymentId: this.ledger.newId(),
      returnUrl: options.returnUrl ?? undefined,
      description: options.description,
      now: options.now,
    });
    await tx.recordPayment({ payment, purpose, chargeRequest: request, requestHash: hash, leaseMs: this.settlements.options.leaseMs });
    return { ...payment, purpose, charge_request: request, request_hash: hash, leased: true, refund_due: false };
  }

  private async current(userId: string, id: string): Promise<Subscription> {
    const s = await this.store.get(userId, id);
    if (!s) throw billingError('UNKNOWN_SUBSCRIPTION');
    return s;
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

  private async changeItems(tx: SubscriptionTx, request: ModifySubscription, hash: string): Promise<OpenPayment | undefined> {
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
    // The items it has already (a change applied, asked again): nothing to do.
    if (sameItems(s.items, items)) {
      checkExpected(request.expected_invoice_price, s.currency, 0);
      if (s.renewal_mutations) await tx.update({ renewal_mutations: null });
      return undefined;
    }
    const sameInterval =
      intervalOf(plans, s).join() === [plans.get(items[0]!.plan_id)!.interval, plans.get(items[0]!.plan_id)!.interval_count].join();
    if (!sameInterval || next.total < current.total) {
      // A downgrade or another billing period takes effect at renewal; nothing is charged now.
      checkExpected(request.expected_invoice_price, s.currency, 0);
      await tx.update({ renewal_mutations: { items: items.map((i) => ({ plan_id: i.plan_id, quantity: i.quantity })) } });
      return undefined;
    }
    const change = priceChange(plans, s.items, items, s.currency, { start: s.current_period_start, end: s.current_period_end }, now);
    checkExpected(request.expected_invoice_price, s.currency, change.total);
    const invoice = this.ledger.invoice(s, change, { start: now, end: s.current_period_end }, 'change');
    await tx.insertInvoice(invoice);
    const sourceId = request.payment_source_id ?? s.payment_source_id;
    if (change.total > 0) {
      if (!sourceId) throw billingError('PAYMENT_SOURCE_REQUIRED');
      const purpose: PaymentPurpose = {
        kind: 'change',
        items: items.map((i) => ({ plan_id: i.plan_id, quantity: i.quantity })),
        from: s.items.map((i) => ({ plan_id: i.plan_id, quantity: i.quantity })),
        period_end: s.current_period_end.toISOString(),
      };
      return this.record(tx, invoice, sourceId, purpose, hash, {
        returnUrl: request.return_url,
        description: next.lines.map((l) => plans.get(l.plan_id)!.name).join(', '),
        now,
      });
    }
    await tx.setInvoiceStatus(invoice.id, InvoiceStatus.PAID);
    await tx.replaceItems(items.map((i) => ({ id: this.ledger.newId(), plan_id: i.plan_id, quantity: i.quantity })));
    await tx.update({ renewal_mutations: null });
    await this.ledger.reconcile(tx, plans);
    return undefined;
  }

  private async checkRenewalPrice(tx: SubscriptionTx, request: ModifySubscription): Promise<void> {
    const s = tx.subscription;
    const items = s.renewal_mutations?.items ?? s.items;
    const plans = await this.catalogue.plans(items.map((i) => i.plan_id));
    checkExpected(request.expected_renewal_price, s.currency, priceItems(plans, items, s.currency).total);
    checkExpected(request.expected_invoice_price, s.currency, 0);
  }

  private async moveStatus(tx: SubscriptionTx, request: ModifySubscription, hash: string): Promise<OpenPayment | undefined> {
    const s = tx.subscription;
    const move = moveForRequestedStatus(request.status!);
    if (move === 'cancel') return void (await this.applyCancel(tx));
    if (move === 'pause') {
      if (request.pause_duration === undefined) throw billingError('INVALID_SUBSCRIPTION');
      await tx.update({ status: nextStatus(s.status, 'pause'), pause_duration_days: request.pause_duration });
      return undefined;
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
      if (!s.payment_source_id) throw billingError('PAYMENT_SOURCE_REQUIRED');
      await tx.insertInvoice(invoice);
      if (invoice.total <= 0) {
        await this.settle(tx, invoice, now, []);
        return undefined;
      }
      return this.record(tx, invoice, s.payment_source_id, { kind: 'resume' }, hash, { description: await this.describe(s), now });
    }
    await tx.update({ status: to, canceled_at: null, pause_duration_days: null, next_action_at: s.current_period_end });
    await this.ledger.reconcile(tx, await this.catalogue.plans(s.items.map((i) => i.plan_id)));
    return undefined;
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
