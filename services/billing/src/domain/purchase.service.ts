import { createHash } from 'node:crypto';
import type { DomainEvent } from '@kith/platform';
import { ApiError } from '@kith/platform';
import { billingError, errorFromBody, isBillingError } from './errors.js';
import { gatewayFailure } from './gateway-errors.js';
import type { PaymentSourcesService } from './payment-sources.service.js';
import { addInterval, applyCredits, priceItems, resolveCurrency, type Credit, type ItemRequest, type PricedInvoice } from './pricing.js';
import {
  type CatalogueStore,
  type ChargeRequest,
  type ChargeResult,
  type Clock,
  type Ids,
  type PaymentGateway,
  type PurchaseContext,
  type PurchaseOutcome,
  type SubscriptionStore,
} from './ports.js';
import {
  InvoiceStatus,
  PAYMENT_GATEWAY_STRIPE,
  PaymentStatus,
  SubscriptionStatus,
  type Invoice,
  type Payment,
  type Plan,
  type Subscription,
} from './types.js';
import { chargeOutcome, invoiceRecord, paymentRecord } from './records.js';
import { paymentView } from './views.js';

export interface ExpectedPrice {
  currency: string;
  amount: number;
}

export interface CreateSubscription {
  items: ItemRequest[];
  payment_source_id?: string | undefined;
  payment_source_token?: string | null | undefined;
  return_url?: string | null | undefined;
  currency?: string | undefined;
  trial_id?: string | null | undefined;
  expected_invoice_price?: ExpectedPrice | null | undefined;
  expected_renewal_price?: ExpectedPrice | null | undefined;
  purchase_token: string;
  gateway_checkout_context?: unknown;
  code?: string | undefined;
  metadata?: { guild_id?: string | undefined } | undefined;
  load_id?: string | undefined;
}

/** A purchase's answer: the subscription and the invoice it was billed with. */
export interface Purchased {
  subscription: Subscription;
  latestInvoice: Invoice | undefined;
  /** This purchase marked the user's perks (a premium tier): they are to be pushed. */
  perksMarked?: boolean;
}

export interface PurchaseOptions {
  leaseMs: number;
  /** How long a copy of a purchase waits for the one doing it before answering 100031. */
  waitMs: number;
  pollMs: number;
}

/**
 * Create Subscription. A `load_id` names one purchase: the first request claims it and charges
 * (the gateway idempotency key is the purchase's payment id, fixed at the claim); every concurrent
 * or later copy with the same body waits for it and answers what it answered; another body under
 * the same name is refused. A claim whose holder died is taken over after its lease, with the same
 * idempotency key, so the gateway charges once however many times the purchase is attempted.
 */
export class PurchaseService {
  /** Copies of a purchase in this process wait on the first instead of polling the database. */
  private readonly inFlight = new Map<string, { hash: string; done: Promise<Purchased> }>();

  constructor(
    private readonly catalogue: CatalogueStore,
    private readonly store: SubscriptionStore,
    private readonly sources: PaymentSourcesService,
    private readonly gateway: PaymentGateway,
    private readonly ids: Ids,
    private readonly clock: Clock,
    private readonly options: PurchaseOptions,
  ) {}

  async create(userId: string, request: CreateSubscription): Promise<Purchased> {
    const hash = requestHash(request);
    const loadId = request.load_id ?? `anonymous:${this.ids.next()}`;
    const key = `${userId}\n${loadId}`;
    const running = this.inFlight.get(key);
    if (running) {
      if (running.hash !== hash) throw billingError('LOAD_ID_REUSED');
      return running.done;
    }
    const done = this.purchase(userId, loadId, hash, request);
    this.inFlight.set(key, { hash, done });
    try {
      return await done;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async purchase(userId: string, loadId: string, hash: string, request: CreateSubscription): Promise<Purchased> {
    // The user's credits, payment source, customer and live premium tier: one read.
    const askedPlans = await this.catalogue.plans(request.items.map((i) => i.plan_id));
    const premium = [...askedPlans.values()].some((p) => p.premium_type > 0);
    const context = await this.store.purchaseContext(userId, request.payment_source_id, this.clock.now(), premium);
    const { plans, priced, currency, used } = await this.quote(request, context.credits);
    if (premium && context.livePremium) throw billingError('ALREADY_SUBSCRIBED');
    const source = priced.total > 0 ? paymentSource(request.payment_source_id, context) : null;
    const customerId = source ? (context.customerId ?? (await this.sources.customerOf(userId))) : null;
    const chargeOf = (paymentId: string): ChargeRequest | null =>
      source && customerId
        ? {
            customerId,
            gatewaySourceId: source.gateway_source_id,
            amount: priced.total,
            currency,
            description: [...plans.values()].map((p) => p.name).join(', '),
            idempotencyKey: `kith_payment_${paymentId}`,
            ...(request.return_url ? { returnUrl: request.return_url } : {}),
            offSession: false,
            metadata: { user_id: userId, payment_id: paymentId },
          }
        : null;

    const deadline = Date.now() + this.options.waitMs;
    for (;;) {
      // A new claim keeps the charge it will send with it (one round trip for both).
      const proposed = this.ids.next();
      const asked = chargeOf(proposed);
      const claim = await this.store.claim(userId, loadId, hash, proposed, this.options.leaseMs, request, asked);
      if (claim.kind === 'mismatch') throw billingError('LOAD_ID_REUSED');
      if (claim.kind === 'other_in_progress') throw billingError('PAYMENT_IN_PROGRESS');
      if (claim.kind === 'done') return this.replay(userId, claim.outcome);
      if (claim.kind === 'claimed') {
        const fresh = claim.paymentId === proposed;
        const chargeRequest = fresh ? { asked, kept: true } : { asked: chargeOf(claim.paymentId), kept: false };
        return this.charge(
          userId,
          loadId,
          claim.paymentId,
          request,
          plans,
          priced,
          currency,
          source,
          used,
          chargeRequest,
          claim.chargeRequest,
        );
      }
      if (Date.now() > deadline) throw billingError('PAYMENT_IN_PROGRESS');
      await sleep(this.options.pollMs);
    }
  }

  /**
   * The catalogue's price for the request, with the user's entitlement credits applied (the
   * invoice a preview with apply_entitlements shows), checked against what the client expects to
   * pay now and at renewal (the full price: a credit pays one period).
   */
  async quote(
    request: Pick<CreateSubscription, 'items' | 'currency' | 'expected_invoice_price' | 'expected_renewal_price'>,
    credits: Credit[] = [],
  ) {
    if (request.items.length === 0) throw billingError('ITEMS_REQUIRED');
    const plans = await this.catalogue.plans(request.items.map((i) => i.plan_id));
    checkItems(plans, request.items);
    const currency = resolveCurrency([...plans.values()], request.currency);
    const full = priceItems(plans, request.items, currency);
    const { priced, used } = applyCredits(full, credits);
    checkExpected(request.expected_invoice_price, currency, priced.total);
    checkExpected(request.expected_renewal_price, currency, full.total);
    return { plans, priced, currency, used };
  }

  private async replay(userId: string, outcome: PurchaseOutcome): Promise<Purchased> {
    if ('subscription_id' in outcome) {
      const subscription = await this.store.get(userId, outcome.subscription_id);
      if (subscription) return { subscription, latestInvoice: await this.store.latestInvoice(subscription.id) };
      throw billingError('UNKNOWN_SUBSCRIPTION');
    }
    throw errorFromBody(outcome.status, outcome.body);
  }

  private async charge(
    userId: string,
    loadId: string,
    paymentId: string,
    request: CreateSubscription,
    plans: Map<string, Plan>,
    priced: PricedInvoice,
    currency: string,
    source: { id: string; gateway_source_id: string } | null,
    credits: string[],
    /** What this attempt would send, and whether the claim kept it already. */
    ask: { asked: ChargeRequest | null; kept: boolean },
    earlier?: ChargeRequest,
  ): Promise<Purchased> {
    const { asked } = ask;
    // An earlier attempt asked the gateway for another amount (the price changed since): this
    // purchase cannot be made at what it was charged; whatever that charge took goes back.
    if (earlier && (earlier.amount !== priced.total || earlier.currency !== currency))
      return this.giveUp(
        userId,
        loadId,
        paymentId,
        earlier,
        billingError('PRICE_MISMATCH', { actual: { currency, amount: priced.total } }),
      );
    const chargeRequest = earlier ?? asked;
    let result: ChargeResult;
    try {
      // Kept before it is sent: whoever finishes this purchase sends the very same request.
      if (chargeRequest && !earlier && !ask.kept) await this.store.saveChargeRequest(userId, loadId, chargeRequest);
      result = chargeRequest ? await this.gateway.charge(chargeRequest) : { status: 'succeeded', gatewayPaymentId: '' };
    } catch (err) {
      // Nothing is known about the charge: the next attempt (a retry, or whoever takes the claim
      // over) asks again under the same idempotency key.
      await this.store.release(userId, loadId);
      throw gatewayFailure(err);
    }
    const now = this.clock.now();
    const payment = this.payment(userId, paymentId, priced, source?.id ?? null, plans, request, result, now);
    if (result.status === 'declined') {
      const error = billingError('CARD_DECLINED', { payment_id: paymentId });
      await this.store.failPurchase(userId, loadId, payment, { status: error.status, body: error.body }, [paymentUpdate(userId, payment)]);
      throw error;
    }
    const paid = result.status === 'succeeded';
    const subscription = this.subscriptionOf(userId, request, plans, currency, source?.id ?? null, paid, now);
    const invoice = this.invoiceOf(subscription, priced, paid);
    payment.subscription_id = subscription.id;
    payment.invoice_id = invoice.id;
    const outcome: PurchaseOutcome = paid
      ? { subscription_id: subscription.id }
      : { status: 400, body: billingError('CONFIRMATION_REQUIRED', { payment_id: paymentId }).body };
    const slotCount = paid ? request.items.reduce((n, i) => n + plans.get(i.plan_id)!.premium_guild_slots * i.quantity, 0) : 0;
    const slots = Array.from({ length: slotCount }, () => this.ids.next());
    const premium = paid && [...plans.values()].some((p) => p.premium_type > 0);
    const created = await this.store.completePurchase(
      userId,
      loadId,
      { subscription, invoice, payment, slots, premium, credits: paid ? credits : [] },
      outcome,
      () => [
        { name: 'USER_SUBSCRIPTIONS_UPDATE', audience: { users: [userId] }, data: null },
        paymentUpdate(userId, payment),
        ...slots.map((id) => slotCreated(userId, id, subscription.id)),
      ],
    );
    if (!paid) throw errorFromBody(400, (outcome as { body: { code: number; message: string } }).body);
    if (created.id !== subscription.id) return { subscription: created, latestInvoice: await this.store.latestInvoice(created.id) };
    return { subscription: created, latestInvoice: invoice, perksMarked: premium };
  }

  /**
   * The scheduler's part: purchases whose asker died (or gave up) and that nobody retried are
   * finished once their lease has passed when the gateway did charge them: made as asked (the same
   * request again, answered with that charge), as a retry would.
   * One that can no longer be made (the user holds the tier by now, the plan or its price changed)
   * is finished with what its charge took given back.
   */
  async recover(max: number, onError: (err: unknown) => void): Promise<number> {
    const abandoned = await this.store.abandonedPurchases(max);
    for (const { userId, loadId, request, paymentId, charged } of abandoned) {
      const asked = request as CreateSubscription;
      const hash = requestHash(asked);
      try {
        // Never charged (its asker died before asking, or the gateway never took it): nothing to
        // finish and nothing to give back; the name is free again. Made now, it would charge for a
        // purchase its client may have given up on or made again under another name.
        const made = charged ? await this.gateway.findCharge(paymentId) : null;
        if (!made) {
          await this.store.dropPurchase(userId, loadId);
          continue;
        }
        await this.purchase(userId, loadId, hash, asked);
      } catch (err) {
        // Finished by the attempt (declined, waiting for the customer), or not decided (the gateway).
        if (!(err instanceof ApiError) || err.status >= 500 || isBillingError(err, 'PAYMENT_IN_PROGRESS')) {
          if (!(err instanceof ApiError) || err.status >= 500) onError(err);
          continue;
        }
        const claim = await this.store.claim(userId, loadId, hash, this.ids.next(), this.options.leaseMs);
        if (claim.kind !== 'claimed') continue;
        await this.giveUp(userId, loadId, claim.paymentId, claim.chargeRequest ?? null, err).catch((e: unknown) => {
          if (e !== err) onError(e);
        });
      }
    }
    return abandoned.length;
  }

  /**
   * Finishes a purchase that cannot be made with `error`: the charge an earlier attempt asked for
   * (sent again, same key) is refunded if it went through, canceled if it waits for the customer;
   * the payment records it (REFUNDED with amount_refunded, PAYMENT_UPDATE).
   */
  private async giveUp(userId: string, loadId: string, paymentId: string, earlier: ChargeRequest | null, error: ApiError): Promise<never> {
    let payment: Payment | null = null;
    if (earlier) {
      try {
        let result = await this.gateway.charge(earlier);
        if (result.status === 'requires_action' || result.status === 'processing')
          result = await this.gateway.cancel(result.gatewayPaymentId, `kith_cancel_${paymentId}`);
        const refunded =
          result.status === 'succeeded' ? await this.gateway.refund(result.gatewayPaymentId, `kith_refund_${paymentId}`) : null;
        payment = paymentRecord({
          id: paymentId,
          userId,
          money: { total: earlier.amount, tax: 0, tax_inclusive: true, currency: earlier.currency },
          status: refunded
            ? PaymentStatus.REFUNDED
            : result.status === 'declined' && result.declineCode !== 'canceled'
              ? PaymentStatus.FAILED
              : PaymentStatus.CANCELED,
          errorCode: error.body.code,
          description: earlier.description,
          idempotencyKey: earlier.idempotencyKey,
          createdAt: this.clock.now(),
          gatewayPaymentId: result.gatewayPaymentId,
          amountRefunded: refunded?.amount ?? 0,
        });
      } catch (err) {
        await this.store.release(userId, loadId);
        throw gatewayFailure(err);
      }
    }
    await this.store.failPurchase(
      userId,
      loadId,
      payment,
      { status: error.status, body: error.body },
      payment ? [paymentUpdate(userId, payment)] : [],
    );
    throw error;
  }

  private subscriptionOf(
    userId: string,
    request: CreateSubscription,
    plans: Map<string, Plan>,
    currency: string,
    sourceId: string | null,
    paid: boolean,
    now: Date,
  ) {
    const first = plans.get(request.items[0]!.plan_id)!;
    const end = addInterval(now, first.interval, first.interval_count);
    return {
      id: this.ids.next(),
      user_id: userId,
      type: 1,
      status: paid ? SubscriptionStatus.ACTIVE : SubscriptionStatus.UNPAID,
      currency,
      payment_gateway: PAYMENT_GATEWAY_STRIPE,
      payment_source_id: sourceId,
      items: request.items.map((i) => ({ id: this.ids.next(), plan_id: i.plan_id, quantity: i.quantity })),
      current_period_start: now,
      current_period_end: end,
      streak_started_at: paid ? now : null,
      canceled_at: null,
      trial_id: null,
      trial_ends_at: null,
      country_code: null,
      metadata: request.metadata?.guild_id ? { guild_id: request.metadata.guild_id } : {},
      renewal_mutations: null,
      pause_duration_days: null,
      pause_ends_at: null,
      // The scheduler renews it at the end of the period (or looks at an unconfirmed payment sooner).
      next_action_at: paid ? end : new Date(now.getTime() + 60_000),
    } satisfies Omit<Subscription, 'created_at' | 'failed_renewals'>;
  }

  private invoiceOf(
    subscription: { id: string; current_period_start: Date; current_period_end: Date },
    priced: PricedInvoice,
    paid: boolean,
  ) {
    return invoiceRecord(this.ids, priced, {
      subscriptionId: subscription.id,
      start: subscription.current_period_start,
      end: subscription.current_period_end,
      reason: 'create',
      status: paid ? InvoiceStatus.PAID : InvoiceStatus.OPEN,
    });
  }

  private payment(
    userId: string,
    paymentId: string,
    priced: PricedInvoice,
    sourceId: string | null,
    plans: Map<string, Plan>,
    request: CreateSubscription,
    result: ChargeResult,
    now: Date,
  ): Payment {
    const first = plans.get(request.items[0]!.plan_id)!;
    return paymentRecord({
      id: paymentId,
      userId,
      money: priced,
      ...chargeOutcome(result),
      description: [...plans.values()].map((p) => p.name).join(', '),
      idempotencyKey: `kith_payment_${paymentId}`,
      createdAt: now,
      sourceId,
      skuId: first.sku_id,
      planId: first.id,
      gatewayPaymentId: result.gatewayPaymentId,
    });
  }
}

/** The payment source a purchase names, if it is the user's and usable. */
function paymentSource(id: string | undefined, context: PurchaseContext): NonNullable<PurchaseContext['source']> {
  if (!id) throw billingError('PAYMENT_SOURCE_REQUIRED');
  if (!context.source || context.source.invalid) throw billingError('INVALID_PAYMENT_SOURCE');
  return context.source;
}

/** A price the client expected that is not the one it would be charged: PRICE_MISMATCH, nothing charged. */
export function checkExpected(expected: ExpectedPrice | null | undefined, currency: string, amount: number): void {
  if (expected && (expected.currency !== currency || expected.amount !== amount))
    throw billingError('PRICE_MISMATCH', { expected, actual: { currency, amount } });
}

/** Items of one subscription: known plans, each once, all billed over the same period. */
export function checkItems(plans: Map<string, Plan>, items: ItemRequest[]): void {
  const seen = new Set<string>();
  for (const item of items) {
    if (!plans.has(item.plan_id)) throw billingError('INVALID_PLAN');
    if (seen.has(item.plan_id)) throw billingError('INVALID_SUBSCRIPTION_ITEM');
    seen.add(item.plan_id);
  }
  const first = plans.get(items[0]!.plan_id)!;
  for (const item of items) {
    const plan = plans.get(item.plan_id)!;
    if (plan.interval !== first.interval || plan.interval_count !== first.interval_count) throw billingError('INVALID_SUBSCRIPTION_ITEM');
    // A premium tier is one per subscription.
    if (plan.premium_type > 0 && item.quantity !== 1) throw billingError('INVALID_SUBSCRIPTION_ITEM');
  }
  if ([...plans.values()].filter((p) => p.premium_type > 0).length > 1) throw billingError('INVALID_SUBSCRIPTION_ITEM');
}

function slotCreated(userId: string, id: string, subscriptionId: string): DomainEvent {
  return {
    name: 'USER_PREMIUM_GUILD_SUBSCRIPTION_SLOT_CREATE',
    audience: { users: [userId] },
    data: { id, subscription_id: subscriptionId, canceled: false, cooldown_ends_at: null, premium_guild_subscription: null },
  };
}

export function paymentUpdate(userId: string, payment: Payment): DomainEvent {
  return { name: 'PAYMENT_UPDATE', audience: { users: [userId] }, data: paymentView(payment) };
}

/** A purchase's body as the idempotency check compares it: keys sorted, so order never matters. */
export function requestHash(request: CreateSubscription | Record<string, unknown>): string {
  return createHash('sha256').update(canonical(request)).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
