import type { DomainEvent } from '@kith/platform';
import type { Credit, DiscountOffer, ItemRequest, PricedInvoice } from './pricing.js';
import type {
  BillingAddress,
  Invoice,
  Payment,
  PaymentSource,
  PaymentStatus,
  Plan,
  RenewalMutations,
  Sku,
  Subscription,
  SubscriptionItem,
  SubscriptionStatus,
} from './types.js';

/** The time the domain reads; tests and the scheduler's tests move it. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** New snowflakes. */
export interface Ids {
  next(): string;
}

// ---------------------------------------------------------------- payment gateway

/** A card as the gateway describes it once attached. */
export interface GatewayCard {
  gatewaySourceId: string;
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
  country: string | null;
}

export type ChargeResult =
  | { status: 'succeeded'; gatewayPaymentId: string }
  | { status: 'requires_action'; gatewayPaymentId: string; redirectUrl: string | null }
  | { status: 'processing'; gatewayPaymentId: string }
  | { status: 'declined'; gatewayPaymentId: string | null; declineCode: string };

export interface ChargeRequest {
  customerId: string;
  gatewaySourceId: string;
  amount: number;
  currency: string;
  description: string;
  /** The same key for every attempt at one payment: the gateway charges it at most once. */
  idempotencyKey: string;
  returnUrl?: string | undefined;
  /** Whether the user is present (a purchase) or not (a renewal). */
  offSession: boolean;
  metadata: Record<string, string>;
}

/** Why the gateway did not answer: it could not be reached, or not in time. The outcome is unknown. */
export class PaymentGatewayUnavailable extends Error {
  constructor(
    readonly kind: 'unavailable' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'PaymentGatewayUnavailable';
  }
}

/** The gateway refused a card or token outright (declined, expired, unknown token). */
export class PaymentSourceRefused extends Error {
  constructor(readonly declineCode: string) {
    super(`payment source refused: ${declineCode}`);
    this.name = 'PaymentSourceRefused';
  }
}

/** A payment gateway (Stripe's API in production and tests alike). */
export interface PaymentGateway {
  createCustomer(userId: string, idempotencyKey: string): Promise<string>;
  /** Turns a gateway token or payment method id into a card attached to the customer. */
  attachSource(customerId: string, token: string, idempotencyKey: string): Promise<GatewayCard>;
  detachSource(gatewaySourceId: string): Promise<void>;
  charge(request: ChargeRequest): Promise<ChargeResult>;
  /** Where a charge stands now (after a confirmation the user did at the gateway). */
  retrieve(gatewayPaymentId: string): Promise<ChargeResult>;
  /**
   * The charge made for one of our payments (by the payment id in its metadata), if the gateway
   * ever made one: how a purchase nobody is waiting for learns whether its request got through.
   */
  findCharge(paymentId: string): Promise<ChargeResult | null>;
  /** Cancels a charge still waiting for the customer; answers where it stands (it may have succeeded meanwhile). */
  cancel(gatewayPaymentId: string, idempotencyKey: string): Promise<ChargeResult>;
  /** Gives back `amount` (all of it when absent) of a charge; the amount refunded by this refund. */
  refund(gatewayPaymentId: string, idempotencyKey: string, amount?: number): Promise<{ amount: number }>;
}

// ---------------------------------------------------------------- stores

/** A user's entitlement credits and discount offers. */
export interface CreditsStore {
  /** Unconsumed credits (entitlements to a plan's period) of the user's, valid at `now`, oldest first. */
  credits(userId: string, now: Date): Promise<Credit[]>;
  /** One of the user's discount offers. */
  discountOffer(userId: string, id: string): Promise<DiscountOffer | undefined>;
}

export interface CatalogueStore {
  skus(): Promise<Sku[]>;
  sku(id: string): Promise<Sku | undefined>;
  plansOfSku(skuId: string): Promise<Plan[]>;
  plans(ids: string[]): Promise<Map<string, Plan>>;
}

export interface NewPaymentSource {
  id: string;
  user_id: string;
  gateway_source_id: string;
  brand: string | null;
  last_4: string | null;
  expires_month: number | null;
  expires_year: number | null;
  country: string | null;
  billing_address: BillingAddress;
}

export interface PaymentSourceStore {
  customerOf(userId: string): Promise<string | undefined>;
  /** Records the user's customer; the first one recorded wins and is returned. */
  saveCustomer(userId: string, customerId: string): Promise<string>;
  list(userId: string): Promise<PaymentSource[]>;
  get(userId: string, id: string): Promise<PaymentSource | undefined>;
  /** Adds a source (the user's default when it is their first), with its event. */
  add(source: NewPaymentSource, event: (s: PaymentSource) => DomainEvent[]): Promise<PaymentSource>;
  update(
    userId: string,
    id: string,
    patch: { billing_address?: BillingAddress; is_default?: boolean; expires_month?: number; expires_year?: number },
    event: (s: PaymentSource) => DomainEvent[],
  ): Promise<PaymentSource | undefined>;
  remove(userId: string, id: string, event: (s: PaymentSource) => DomainEvent[]): Promise<PaymentSource | undefined>;
}

export interface SubscriptionQuery {
  includeInactive: boolean;
  excludeUnpaid: boolean;
  type?: number | undefined;
  limit?: number | undefined;
}

/** See SubscriptionStore.purchaseContext. */
export interface PurchaseContext {
  credits: { id: string; plan_id: string }[];
  source: { id: string; gateway_source_id: string; invalid: boolean } | undefined;
  customerId: string | undefined;
  livePremium: boolean;
}

/** A purchase's claim on its load_id. */
export type Claim =
  /** `chargeRequest`: what an earlier attempt sent the gateway (sent again unchanged). */
  | { kind: 'claimed'; paymentId: string; chargeRequest?: ChargeRequest | undefined }
  | { kind: 'busy' }
  | { kind: 'done'; outcome: PurchaseOutcome }
  | { kind: 'mismatch' }
  | { kind: 'other_in_progress' };

export type PurchaseOutcome =
  { subscription_id: string } | { status: number; body: { code: number; message: string; [k: string]: unknown } };

export interface NewSubscription {
  subscription: Omit<Subscription, 'items' | 'created_at' | 'failed_renewals'> & {
    items: { id: string; plan_id: string; quantity: number }[];
  };
  invoice: Invoice;
  payment: Payment;
  /** Ids of the boost slots the purchase grants. */
  slots: string[];
  /** Whether it changes the user's premium type (a premium tier bought and paid). */
  premium: boolean;
  /** Entitlement credits the first invoice used: consumed with it. */
  credits?: string[];
}

export type SubscriptionPatch = Partial<
  Pick<
    Subscription,
    | 'status'
    | 'payment_source_id'
    | 'current_period_start'
    | 'current_period_end'
    | 'streak_started_at'
    | 'canceled_at'
    | 'renewal_mutations'
    | 'pause_duration_days'
    | 'pause_ends_at'
    | 'failed_renewals'
    | 'next_action_at'
  >
>;

/** A boost slot and, when applied, the guild boost it holds. */
export interface SlotRecord {
  id: string;
  user_id: string;
  subscription_id: string;
  canceled: boolean;
  cooldown_ends_at: Date | null;
  boost: { id: string; guild_id: string; created_at: Date } | null;
}

/** What a payment recorded before its charge applies once the gateway took the money. */
export type PaymentPurpose =
  /** New items for the rest of the period (an upgrade), valid while the subscription still has `from` until `period_end`. */
  | { kind: 'change'; items: { plan_id: string; quantity: number }[]; from: { plan_id: string; quantity: number }[]; period_end: string }
  /** An open invoice paid (Pay Subscription Invoice), with the source it was paid with. */
  | { kind: 'invoice'; source_id: string }
  /** A paused subscription resumed with a new period, paid now. */
  | { kind: 'resume' };

/** A payment recorded before its charge, with the exact request the gateway is (again) sent. */
export interface OpenPayment extends Payment {
  purpose: PaymentPurpose;
  charge_request: ChargeRequest;
  request_hash: string | null;
  /** Whether a request is asking the gateway about it right now. */
  leased: boolean;
  refund_due: boolean;
}

export interface RecordPayment {
  payment: Payment;
  purpose: PaymentPurpose;
  chargeRequest: ChargeRequest;
  requestHash: string;
  leaseMs: number;
}

/** One subscription, locked for a change, and what may be written with it in the same transaction. */
export interface SubscriptionTx {
  readonly subscription: Subscription;
  update(patch: SubscriptionPatch): Promise<void>;
  replaceItems(items: SubscriptionItem[]): Promise<void>;
  invoice(id: string): Promise<Invoice | undefined>;
  openInvoice(): Promise<Invoice | undefined>;
  insertInvoice(invoice: Invoice): Promise<void>;
  setInvoiceStatus(id: string, status: number): Promise<void>;
  insertPayment(payment: Payment): Promise<void>;
  /** The latest payment still waiting at the gateway (a confirmation), if any. */
  pendingPayment(): Promise<Payment | undefined>;
  setPayment(id: string, patch: { status: number; error_code?: number | null }): Promise<void>;
  /** The payment recorded for this subscription and not yet settled, if any (one at a time). */
  openPayment(): Promise<OpenPayment | undefined>;
  /** Records a payment before it is charged, leased to the caller for `leaseMs`. */
  recordPayment(record: RecordPayment): Promise<void>;
  /** Leases an open payment to the caller (a retry of the request that made it). */
  takePayment(id: string, leaseMs: number): Promise<void>;
  /** Settles a payment: its status, the gateway's id for it, and whether it must be refunded. */
  settlePayment(
    id: string,
    patch: {
      status: number;
      error_code?: number | null;
      gateway_payment_id?: string | null;
      refund_due?: boolean;
      /** Still waiting (for the customer): when the scheduler looks at it again. */
      lookAgainMs?: number;
    },
  ): Promise<void>;
  slots(): Promise<SlotRecord[]>;
  addSlots(ids: string[]): Promise<void>;
  /** Removes slots, ending their boosts; returns the guilds that lost one. */
  removeSlots(ids: string[]): Promise<string[]>;
  /** Marks a user's premium type or a guild's boost count to be pushed to its service. */
  markPerks(kind: 'user' | 'guild', id: string): Promise<void>;
  emit(events: DomainEvent[]): Promise<void>;
}

export interface SubscriptionStore {
  list(userId: string, query: SubscriptionQuery): Promise<Subscription[]>;
  get(userId: string, id: string): Promise<Subscription | undefined>;
  /**
   * What a purchase needs to know of the user, in one read: their entitlement credits live at
   * `now`, the payment source `sourceId` if it is theirs (and not removed), their customer at the
   * gateway if made, and (asked only when `premium`) whether they hold a live premium tier.
   */
  purchaseContext(userId: string, sourceId: string | undefined, now: Date, premium: boolean): Promise<PurchaseContext>;
  latestInvoice(subscriptionId: string): Promise<Invoice | undefined>;
  invoices(subscriptionId: string): Promise<Invoice[]>;
  payment(id: string): Promise<Payment | undefined>;

  /**
   * Claims the purchase named `loadId` for this attempt, proposing `paymentId`; a new claim keeps
   * `chargeRequest` (the exact request its charge will send the gateway) with it.
   */
  claim(
    userId: string,
    loadId: string,
    requestHash: string,
    paymentId: string,
    leaseMs: number,
    request?: unknown,
    chargeRequest?: ChargeRequest | null,
  ): Promise<Claim>;
  /** Keeps the exact request the purchase's charge sends the gateway, before it is sent (a claim taken over without one). */
  saveChargeRequest(userId: string, loadId: string, request: ChargeRequest): Promise<void>;
  /** Purchases still pending whose asker's lease has passed (oldest first), with what they were asked. */
  abandonedPurchases(limit: number): Promise<{ userId: string; loadId: string; request: unknown; paymentId: string; charged: boolean }[]>;
  /** Forgets a pending purchase nobody holds that never reached the gateway: its load_id may be used afresh. */
  dropPurchase(userId: string, loadId: string): Promise<void>;
  release(userId: string, loadId: string): Promise<void>;
  /** Writes a purchase that charged (or awaits confirmation): subscription, items, invoice, payment, slots and events, at once. */
  completePurchase(
    userId: string,
    loadId: string,
    created: NewSubscription,
    outcome: PurchaseOutcome,
    events: (s: Subscription) => DomainEvent[],
  ): Promise<Subscription>;
  /** Writes a purchase the gateway declined: the failed payment, the outcome, its event. */
  failPurchase(userId: string, loadId: string, payment: Payment | null, outcome: PurchaseOutcome, events: DomainEvent[]): Promise<void>;

  /** Runs `fn` with the user's subscription locked; one already being changed is a payment in progress (100031). */
  change<T>(userId: string, id: string, fn: (tx: SubscriptionTx) => Promise<T>): Promise<T>;
  /** Runs `fn` on one subscription due by `now` that no other replica holds; false when none is due. */
  nextDue(now: Date, fn: (tx: SubscriptionTx) => Promise<void>): Promise<boolean>;
  /** Moves a due subscription's next look to `at` (its handling failed and wrote nothing). */
  postpone(id: string, at: Date): Promise<void>;

  /** Runs `fn` with a recorded payment and its subscription locked (waiting for them); undefined when it is gone. */
  withPayment<T>(paymentId: string, fn: (tx: SubscriptionTx, payment: OpenPayment) => Promise<T>): Promise<T | undefined>;
  /** Ends a caller's lease on a payment: whoever comes next may ask the gateway about it. */
  releasePayment(paymentId: string): Promise<void>;
  /** Leases the next open payment nobody is asking about (oldest first; SKIP LOCKED), or the next refund due. */
  nextUnsettled(leaseMs: number): Promise<OpenPayment | undefined>;
  nextRefundDue(leaseMs: number): Promise<OpenPayment | undefined>;
  /** Records a refund the gateway made (once), with its event. */
  markRefunded(paymentId: string, amount: number, events: (p: Payment) => DomainEvent[]): Promise<Payment | undefined>;
}

export type { ItemRequest, PricedInvoice, PaymentStatus, RenewalMutations, SubscriptionStatus };
