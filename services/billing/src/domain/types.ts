/** The billing service's domain objects, as the store hands them out (ids are strings). */

export const SubscriptionStatus = {
  UNPAID: 0,
  ACTIVE: 1,
  PAST_DUE: 2,
  CANCELED: 3,
  ENDED: 4,
  ACCOUNT_HOLD: 6,
  BILLING_RETRY: 7,
  PAUSED: 8,
  PAUSE_PENDING: 9,
} as const;
export type SubscriptionStatus = (typeof SubscriptionStatus)[keyof typeof SubscriptionStatus];

export const PaymentStatus = { PENDING: 0, COMPLETED: 1, FAILED: 2, REVERSED: 3, REFUNDED: 4, CANCELED: 5 } as const;
export type PaymentStatus = (typeof PaymentStatus)[keyof typeof PaymentStatus];

export const InvoiceStatus = { OPEN: 1, PAID: 2, VOID: 3, UNCOLLECTIBLE: 4 } as const;
export type InvoiceStatus = (typeof InvoiceStatus)[keyof typeof InvoiceStatus];

/** 1 MONTH, 2 YEAR, 3 DAY. */
export type Interval = 1 | 2 | 3;

export interface Sku {
  id: string;
  name: string;
  slug: string;
  type: number;
  application_id: string;
  product_line: number | null;
  premium_type: number;
}

export interface PlanPrice {
  currency: string;
  amount: number;
  /** Basis points of tax: inside `amount` when the plan is tax-inclusive, on top of it otherwise. */
  tax_bps: number;
  tax_inclusive: boolean;
  exponent: number;
}

export interface Plan {
  id: string;
  sku_id: string;
  name: string;
  interval: Interval;
  interval_count: number;
  premium_guild_slots: number;
  prices: PlanPrice[];
  /** The SKU's premium type (0 for add-ons). */
  premium_type: number;
}

export interface SubscriptionItem {
  id: string;
  plan_id: string;
  quantity: number;
}

export interface RenewalMutations {
  items?: { plan_id: string; quantity: number }[];
  payment_gateway_plan_id?: string | null;
}

export interface Subscription {
  id: string;
  user_id: string;
  type: number;
  status: SubscriptionStatus;
  currency: string;
  payment_gateway: number | null;
  payment_source_id: string | null;
  items: SubscriptionItem[];
  current_period_start: Date;
  current_period_end: Date;
  streak_started_at: Date | null;
  canceled_at: Date | null;
  trial_id: string | null;
  trial_ends_at: Date | null;
  country_code: string | null;
  metadata: Record<string, unknown>;
  renewal_mutations: RenewalMutations | null;
  pause_duration_days: number | null;
  pause_ends_at: Date | null;
  failed_renewals: number;
  next_action_at: Date | null;
  created_at: Date;
}

export interface InvoiceLine {
  id: string;
  plan_id: string;
  sku_id: string;
  quantity: number;
  /** What the line costs after discounts (negative for a credit). */
  amount: number;
  unit_price: number;
  proration: boolean;
  discounts: { type: number; amount: number }[];
}

export interface Invoice {
  id: string;
  subscription_id: string | null;
  status: InvoiceStatus;
  currency: string;
  subtotal: number;
  tax: number;
  total: number;
  tax_inclusive: boolean;
  items: InvoiceLine[];
  period_start: Date;
  period_end: Date;
  reason: 'create' | 'renewal' | 'change' | 'preview';
  exponent: number;
  /** Discounts (their ids) and user discount offers (id → when it expires) applied to it. */
  applied_discount_ids?: string[];
  applied_user_discounts?: Record<string, string | null>;
}

export interface Payment {
  id: string;
  user_id: string;
  subscription_id: string | null;
  invoice_id: string | null;
  payment_source_id: string | null;
  amount: number;
  tax: number;
  tax_inclusive: boolean;
  currency: string;
  status: PaymentStatus;
  description: string;
  sku_id: string | null;
  plan_id: string | null;
  gateway_payment_id: string | null;
  idempotency_key: string;
  error_code: number | null;
  amount_refunded: number;
  created_at: Date;
}

export interface BillingAddress {
  name: string;
  line_1: string;
  line_2?: string | null | undefined;
  city: string;
  state?: string | undefined;
  country: string;
  postal_code?: string | undefined;
}

export interface PaymentSource {
  id: string;
  user_id: string;
  type: number;
  payment_gateway: number;
  gateway_source_id: string;
  brand: string | null;
  last_4: string | null;
  expires_month: number | null;
  expires_year: number | null;
  country: string | null;
  billing_address: BillingAddress;
  is_default: boolean;
  invalid: boolean;
  flags: number;
  deleted_at: Date | null;
}

/** The platform's payment gateway numbers; this service bills through Stripe's API. */
export const PAYMENT_GATEWAY_STRIPE = 1;
