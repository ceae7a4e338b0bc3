import type { DomainEvent } from '@kith/platform';
import type { ItemRequest, PricedInvoice } from './pricing.js';
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
  refund(gatewayPaymentId: string, idempotencyKey: string): Promise<void>;
}

// ---------------------------------------------------------------- stores

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

/** A purchase's claim on its load_id. */
export type Claim =
  | { kind: 'claimed'; paymentId: string }
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
  /** Whether the user holds a live subscription to any premium tier. */
  hasLivePremium(userId: string, premiumSkuIds: string[]): Promise<boolean>;
  latestInvoice(subscriptionId: string): Promise<Invoice | undefined>;
  invoices(subscriptionId: string): Promise<Invoice[]>;
  payment(id: string): Promise<Payment | undefined>;

  claim(userId: string, loadId: string, requestHash: string, paymentId: string, leaseMs: number): Promise<Claim>;
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
  failPurchase(userId: string, loadId: string, payment: Payment, outcome: PurchaseOutcome, events: DomainEvent[]): Promise<void>;

  /** Runs `fn` with the user's subscription locked; one already being changed is a payment in progress (100031). */
  change<T>(userId: string, id: string, fn: (tx: SubscriptionTx) => Promise<T>): Promise<T>;
  /** Runs `fn` on one subscription due by `now` that no other replica holds; false when none is due. */
  nextDue(now: Date, fn: (tx: SubscriptionTx) => Promise<void>): Promise<boolean>;
  /** Moves a due subscription's next look to `at` (its handling failed and wrote nothing). */
  postpone(id: string, at: Date): Promise<void>;
}

export type { ItemRequest, PricedInvoice, PaymentStatus, RenewalMutations, SubscriptionStatus };
