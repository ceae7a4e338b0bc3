import type { SlotRecord } from './ports.js';
import type { Invoice, Payment, PaymentSource, Plan, Sku, Subscription } from './types.js';

/** The platform's JSON shapes of billing objects (discord-userdoccers: subscription, payment, billing, store). */

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function subscriptionView(s: Subscription, latestInvoice?: Invoice) {
  return {
    id: s.id,
    type: s.type,
    payment_gateway: s.payment_gateway,
    currency: s.currency,
    items: s.items.map((i) => ({ id: i.id, plan_id: i.plan_id, quantity: i.quantity })),
    payment_gateway_plan_id: null,
    payment_gateway_subscription_id: null,
    current_period_start: s.current_period_start.toISOString(),
    current_period_end: s.current_period_end.toISOString(),
    ...(s.streak_started_at ? { streak_started_at: s.streak_started_at.toISOString() } : {}),
    status: s.status,
    ...(s.renewal_mutations ? { renewal_mutations: s.renewal_mutations } : {}),
    ...(s.trial_id ? { trial_id: s.trial_id, trial_ends_at: iso(s.trial_ends_at) } : {}),
    payment_source_id: s.payment_source_id,
    created_at: s.created_at.toISOString(),
    ...(s.canceled_at ? { canceled_at: s.canceled_at.toISOString() } : {}),
    country_code: s.country_code,
    metadata: s.metadata,
    ...(latestInvoice ? { latest_invoice: invoiceView(latestInvoice) } : {}),
    // The spec's neutral name and the platform's real one (the mobile store framework's brand).
    use_store_resubscribe: false,
    use_storekit_resubscribe: false,
    price: null,
    ...(s.pause_ends_at ? { pause_ends_at: s.pause_ends_at.toISOString() } : {}),
  };
}

export function invoiceView(i: Invoice) {
  return {
    id: i.id,
    status: i.status,
    currency: i.currency,
    subtotal: i.subtotal,
    tax: i.tax,
    total: i.total,
    tax_inclusive: i.tax_inclusive,
    items: i.items.map((l) => ({
      id: l.id,
      quantity: l.quantity,
      amount: l.amount,
      proration: l.proration,
      subscription_plan_id: l.plan_id,
      subscription_plan_price: l.unit_price,
      discounts: l.discounts,
      sku_id: l.sku_id,
      unit_price: { currency: i.currency, amount: l.unit_price, exponent: i.exponent },
    })),
    subscription_period_start: i.period_start.toISOString(),
    subscription_period_end: i.period_end.toISOString(),
    applied_discount_ids: i.applied_discount_ids ?? [],
    applied_user_discounts: i.applied_user_discounts ?? {},
  };
}

export function paymentView(p: Payment) {
  return {
    id: p.id,
    amount: p.amount,
    tax: p.tax,
    tax_inclusive: p.tax_inclusive,
    currency: p.currency,
    amount_refunded: p.amount_refunded,
    description: p.description,
    status: p.status,
    created_at: p.created_at.toISOString(),
    ...(p.sku_id ? { sku_id: p.sku_id } : {}),
    ...(p.plan_id ? { sku_subscription_plan_id: p.plan_id } : {}),
    payment_gateway: 1,
    ...(p.gateway_payment_id ? { payment_gateway_payment_id: p.gateway_payment_id } : {}),
    flags: 0,
    metadata: { billing_error_code: p.error_code },
  };
}

/** `partial` hides the billing address but its name and country, as the list does. */
export function sourceView(s: PaymentSource, partial = false) {
  const address = partial ? { name: s.billing_address.name, country: s.billing_address.country } : s.billing_address;
  return {
    id: s.id,
    type: s.type,
    invalid: s.invalid,
    flags: s.flags,
    deleted_at: iso(s.deleted_at),
    ...(s.brand ? { brand: s.brand } : {}),
    ...(s.last_4 ? { last_4: s.last_4 } : {}),
    ...(s.expires_month ? { expires_month: s.expires_month } : {}),
    ...(s.expires_year ? { expires_year: s.expires_year } : {}),
    billing_address: address,
    country: s.country,
    payment_gateway: s.payment_gateway,
    payment_gateway_source_id: s.gateway_source_id,
    default: s.is_default,
  };
}

/** A published plan: its prices per purchase type for the asked country, and the deprecated single price. */
export function planView(p: Plan, currency: string, countryCode: string) {
  const prices = p.prices.filter((x) => x.currency === currency || x.currency === 'usd');
  const main = p.prices.find((x) => x.currency === currency) ?? p.prices.find((x) => x.currency === 'usd') ?? p.prices[0];
  const unit = prices.map((x) => ({ currency: x.currency, amount: x.amount, exponent: x.exponent }));
  return {
    id: p.id,
    name: p.name,
    sku_id: p.sku_id,
    interval: p.interval,
    interval_count: p.interval_count,
    tax_inclusive: main?.tax_inclusive ?? true,
    currency: main?.currency ?? 'usd',
    price: main?.amount ?? 0,
    price_tier: null,
    prices: { '0': { country_prices: { country_code: countryCode, prices: unit }, payment_source_prices: {} } },
  };
}

export function skuView(s: Sku) {
  return {
    id: s.id,
    type: s.type,
    application_id: s.application_id,
    product_line: s.product_line,
    flags: 0,
    name: s.name,
    slug: s.slug,
    access_type: 1,
    features: [],
    premium: false,
    show_age_gate: false,
    dependent_sku_id: null,
    release_date: null,
  };
}

/** A boost slot; `premium_guild_subscription` is the guild boost it holds, when applied. */
export function slotView(slot: SlotRecord, user?: unknown, pauseEndsAt: Date | null = null) {
  return {
    id: slot.id,
    subscription_id: slot.subscription_id,
    canceled: slot.canceled,
    cooldown_ends_at: iso(slot.cooldown_ends_at),
    premium_guild_subscription: slot.boost
      ? {
          id: slot.boost.id,
          user_id: slot.user_id,
          guild_id: slot.boost.guild_id,
          ended: false,
          pause_ends_at: iso(pauseEndsAt),
          ...(user ? { user } : {}),
        }
      : null,
  };
}
