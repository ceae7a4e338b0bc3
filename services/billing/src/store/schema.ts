import type { ColumnType, Generated, JSONColumnType } from 'kysely';

type Id = ColumnType<string, string, string>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;

export interface SkusTable {
  id: Id;
  name: string;
  slug: string;
  type: number;
  application_id: Id;
  product_line: number | null;
  premium_type: number;
  published: boolean;
}

export interface PlansTable {
  id: Id;
  sku_id: Id;
  name: string;
  interval: number;
  interval_count: number;
  premium_guild_slots: number;
  published: boolean;
}

export interface PlanPricesTable {
  plan_id: Id;
  currency: string;
  amount: number;
  tax_bps: number;
  tax_inclusive: boolean;
  exponent: number;
}

export interface CustomersTable {
  user_id: Id;
  gateway_customer_id: string;
  created_at: Generated<Date>;
}

export interface PaymentSourcesTable {
  id: Id;
  user_id: Id;
  type: Generated<number>;
  payment_gateway: Generated<number>;
  gateway_source_id: string;
  brand: string | null;
  last_4: string | null;
  expires_month: number | null;
  expires_year: number | null;
  country: string | null;
  billing_address: JSONColumnType<Record<string, unknown>, string, string>;
  is_default: Generated<boolean>;
  invalid: Generated<boolean>;
  flags: Generated<number>;
  deleted_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface SubscriptionsTable {
  id: Id;
  user_id: Id;
  type: number;
  status: number;
  currency: string;
  payment_gateway: number | null;
  payment_source_id: string | null;
  current_period_start: Timestamp;
  current_period_end: Timestamp;
  streak_started_at: NullableTimestamp;
  canceled_at: NullableTimestamp;
  trial_id: string | null;
  trial_ends_at: NullableTimestamp;
  country_code: string | null;
  metadata: Json<Record<string, unknown>>;
  renewal_mutations: Json<Record<string, unknown> | null> | null;
  pause_duration_days: number | null;
  pause_ends_at: NullableTimestamp;
  failed_renewals: Generated<number>;
  next_action_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SubscriptionItemsTable {
  id: Id;
  subscription_id: Id;
  plan_id: Id;
  quantity: number;
}

export interface InvoicesTable {
  id: Id;
  subscription_id: Id;
  user_id: Id;
  status: number;
  currency: string;
  subtotal: number;
  tax: number;
  total: number;
  tax_inclusive: boolean;
  items: Json<unknown[]>;
  period_start: Timestamp;
  period_end: Timestamp;
  reason: string;
  created_at: Timestamp;
}

export interface PaymentsTable {
  id: Id;
  user_id: Id;
  subscription_id: string | null;
  invoice_id: string | null;
  payment_source_id: string | null;
  amount: number;
  tax: number;
  tax_inclusive: boolean;
  currency: string;
  status: number;
  description: string;
  sku_id: string | null;
  plan_id: string | null;
  gateway_payment_id: string | null;
  idempotency_key: string;
  error_code: number | null;
  amount_refunded: Generated<number>;
  created_at: Timestamp;
  purpose: Generated<unknown>;
  charge_request: Generated<unknown>;
  request_hash: Generated<string | null>;
  lease_until: Generated<Date | null>;
  refund_due: Generated<boolean>;
}

export interface PurchasesTable {
  user_id: Id;
  load_id: string;
  request_hash: string;
  state: string;
  subscription_id: string | null;
  payment_id: Id;
  outcome: Json<Record<string, unknown>> | null;
  lease_until: Timestamp;
  created_at: Generated<Date>;
  request: Generated<unknown>;
  charge_request: Generated<unknown>;
}

export interface PremiumGuildSlotsTable {
  id: Id;
  user_id: Id;
  subscription_id: Id;
  canceled: Generated<boolean>;
  cooldown_ends_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface GuildBoostsTable {
  id: Id;
  slot_id: Id;
  user_id: Id;
  guild_id: Id;
  ended: Generated<boolean>;
  created_at: Timestamp;
  ended_at: NullableTimestamp;
}

export interface BoostChangesTable {
  user_id: Id;
  at: Timestamp;
}

export interface BillingDatabase {
  skus: SkusTable;
  plans: PlansTable;
  plan_prices: PlanPricesTable;
  customers: CustomersTable;
  payment_sources: PaymentSourcesTable;
  subscriptions: SubscriptionsTable;
  subscription_items: SubscriptionItemsTable;
  invoices: InvoicesTable;
  payments: PaymentsTable;
  purchases: PurchasesTable;
  premium_guild_slots: PremiumGuildSlotsTable;
  guild_boosts: GuildBoostsTable;
  boost_changes: BoostChangesTable;
  perk_sync: PerkSyncTable;
  entitlements: EntitlementsTable;
  user_discount_offers: UserDiscountOffersTable;
}

export interface PerkSyncTable {
  kind: string;
  target_id: Id;
  since: Generated<Date>;
}

export interface EntitlementsTable {
  id: Id;
  user_id: Id;
  sku_id: Id;
  application_id: Id;
  subscription_id: string | null;
  type: number;
  starts_at: Timestamp;
  ends_at: NullableTimestamp;
  created_at: Generated<Date>;
  plan_id: Generated<string | null>;
  consumed: Generated<boolean>;
  consumed_invoice_id: Generated<string | null>;
}

export interface UserDiscountOffersTable {
  id: Id;
  user_id: Id;
  discount_id: Id;
  amount: number;
  plan_ids: string[];
  expires_at: NullableTimestamp;
  applied_at: NullableTimestamp;
  invoice_id: string | null;
  created_at: Generated<Date>;
}
