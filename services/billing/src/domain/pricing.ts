import { billingError } from './errors.js';
import type { Interval, InvoiceLine, Plan, PlanPrice } from './types.js';

export interface ItemRequest {
  plan_id: string;
  quantity: number;
}

/** An invoice's money, before it has an id or a status. */
export interface PricedInvoice {
  currency: string;
  lines: Omit<InvoiceLine, 'id'>[];
  subtotal: number;
  tax: number;
  total: number;
  tax_inclusive: boolean;
  exponent: number;
  /** The tax rate the total was computed with (basis points), to compute it again after discounts. */
  tax_bps: number;
  /** Discounts (their ids) and user discount offers (id → when it expires) applied. */
  applied_discount_ids?: string[];
  applied_user_discounts?: Record<string, string | null>;
}

/** The platform's invoice discount types (payment.mdx, Invoice Discount Type). */
export const DiscountType = { SUBSCRIPTION_PLAN: 1, ENTITLEMENT: 2, PREMIUM_TRIAL: 4, DEFAULT: 5 } as const;

/** A credit: an unconsumed entitlement to one period of a plan. */
export interface Credit {
  id: string;
  plan_id: string;
}

/**
 * A user discount offer: its discount's `amount` (in the smallest currency unit, as the platform's
 * Discount structure gives it) off the plans the discount names.
 */
export interface DiscountOffer {
  id: string;
  discount_id: string;
  amount: number;
  plan_ids: string[];
  expires_at: Date | null;
  applied_at: Date | null;
}

/**
 * Entitlement credits applied to an invoice: each pays one unit of a full-price line of its plan
 * for the period (an ENTITLEMENT discount on the line). Returns the credited invoice and the
 * credits it used; prorated lines (a change) take none.
 */
export function applyCredits(priced: PricedInvoice, credits: Credit[]): { priced: PricedInvoice; used: string[] } {
  const left = [...credits];
  const used: string[] = [];
  const lines = priced.lines.map((line) => {
    if (line.proration || line.amount <= 0) return line;
    let covered = 0;
    for (let n = 0; n < line.quantity; n++) {
      const at = left.findIndex((c) => c.plan_id === line.plan_id);
      if (at === -1) break;
      used.push(left.splice(at, 1)[0]!.id);
      covered += 1;
    }
    if (covered === 0) return line;
    const off = Math.min(line.amount, covered * line.unit_price);
    return { ...line, amount: line.amount - off, discounts: [...line.discounts, { type: DiscountType.ENTITLEMENT, amount: off }] };
  });
  return { priced: repriced(priced, lines), used };
}

/**
 * A discount offer applied: its amount off every line (that costs something) of a plan it names,
 * never taking a line below zero (a DEFAULT discount on the line, of what it took). Refused
 * (100086) when it has expired, was applied already or names none of the plans.
 */
export function applyOffer(priced: PricedInvoice, offer: DiscountOffer, now: Date): PricedInvoice {
  if (offer.applied_at || (offer.expires_at && offer.expires_at <= now)) throw billingError('DISCOUNT_NOT_AVAILABLE');
  if (!priced.lines.some((l) => offer.plan_ids.includes(l.plan_id) && l.amount > 0)) throw billingError('DISCOUNT_NOT_AVAILABLE');
  const lines = priced.lines.map((line) => {
    if (!offer.plan_ids.includes(line.plan_id) || line.amount <= 0) return line;
    const off = Math.min(line.amount, offer.amount);
    return { ...line, amount: line.amount - off, discounts: [...line.discounts, { type: DiscountType.DEFAULT, amount: off }] };
  });
  return {
    ...repriced(priced, lines),
    applied_discount_ids: [...(priced.applied_discount_ids ?? []), offer.discount_id],
    applied_user_discounts: { ...priced.applied_user_discounts, [offer.id]: offer.expires_at?.toISOString() ?? null },
  };
}

/** The same invoice over other lines: subtotal, tax and total again. */
function repriced(priced: PricedInvoice, lines: Omit<InvoiceLine, 'id'>[]): PricedInvoice {
  const next = totals(lines, priced.tax_bps, priced.tax_inclusive);
  return { ...priced, lines, ...next };
}

function totals(lines: Omit<InvoiceLine, 'id'>[], bps: number, inclusive: boolean) {
  const subtotal = lines.reduce((sum, l) => sum + l.amount, 0);
  const taxable = Math.max(0, subtotal);
  const tax = inclusive ? Math.round((taxable * bps) / (10_000 + bps)) : Math.round((taxable * bps) / 10_000);
  return { subtotal, tax, total: inclusive ? subtotal : subtotal + tax };
}

/** The price of a plan in a currency, or the platform's invalid-plan error when it is not sold in it. */
export function priceOf(plan: Plan, currency: string): PlanPrice {
  const price = plan.prices.find((p) => p.currency === currency);
  if (!price) throw billingError('INVALID_PLAN');
  return price;
}

/** The currency a purchase is billed in: the asked one, else the first the plans are all sold in. */
export function resolveCurrency(plans: Plan[], asked: string | undefined): string {
  if (asked) return asked;
  const first = plans[0]?.prices.map((p) => p.currency) ?? [];
  return first.includes('usd') ? 'usd' : (first[0] ?? 'usd');
}

/**
 * Sums lines into an invoice. Tax-inclusive prices (VAT) carry their tax inside the amount: the
 * tax line says how much of it; tax-exclusive ones (sales tax) add it on top. Rounded per invoice,
 * half up, in the smallest unit.
 */
export function invoiceOf(currency: string, lines: Omit<InvoiceLine, 'id'>[], prices: PlanPrice[]): PricedInvoice {
  const bps = prices[0]?.tax_bps ?? 0;
  const inclusive = prices[0]?.tax_inclusive ?? true;
  const exponent = prices[0]?.exponent ?? 2;
  return { currency, lines, ...totals(lines, bps, inclusive), tax_inclusive: inclusive, exponent, tax_bps: bps };
}

/** A full period of the given items at catalogue prices (a purchase or a renewal). */
export function priceItems(plans: ReadonlyMap<string, Plan>, items: ItemRequest[], currency: string): PricedInvoice {
  const prices: PlanPrice[] = [];
  const lines = items.map((item) => {
    const plan = plans.get(item.plan_id);
    if (!plan) throw billingError('INVALID_PLAN');
    const price = priceOf(plan, currency);
    prices.push(price);
    return {
      plan_id: plan.id,
      sku_id: plan.sku_id,
      quantity: item.quantity,
      amount: price.amount * item.quantity,
      unit_price: price.amount,
      proration: false,
      discounts: [],
    };
  });
  return invoiceOf(currency, lines, prices);
}

/**
 * A change in the middle of a period: the unused part of the current items comes back as credit
 * (a SUBSCRIPTION_PLAN discount, type 1) and the new items cost their share of what is left.
 */
export function priceChange(
  plans: ReadonlyMap<string, Plan>,
  current: ItemRequest[],
  next: ItemRequest[],
  currency: string,
  period: { start: Date; end: Date },
  now: Date,
): PricedInvoice {
  const length = period.end.getTime() - period.start.getTime();
  const left = Math.min(length, Math.max(0, period.end.getTime() - now.getTime()));
  const share = length > 0 ? left / length : 0;
  const full = priceItems(plans, next, currency);
  const old = priceItems(plans, current, currency);
  const lines: Omit<InvoiceLine, 'id'>[] = [
    ...old.lines.map((l) => {
      const credit = Math.round(l.amount * share);
      return { ...l, amount: -credit, proration: true, discounts: [{ type: 1, amount: credit }] };
    }),
    ...full.lines.map((l) => ({ ...l, amount: Math.round(l.amount * share), proration: true })),
  ];
  const prices = items(plans, next, currency);
  return invoiceOf(currency, lines, prices);
}

function items(plans: ReadonlyMap<string, Plan>, list: ItemRequest[], currency: string): PlanPrice[] {
  return list.map((i) => priceOf(plans.get(i.plan_id)!, currency));
}

/** The end of a period that starts at `start`: months keep the day, clamped to the month's last. */
export function addInterval(start: Date, interval: Interval, count: number): Date {
  if (interval === 3) return new Date(start.getTime() + count * 86_400_000);
  const months = interval === 1 ? count : count * 12;
  const d = new Date(start.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/** The billing period of a set of items: the longest plan's (items of one subscription share it). */
export function periodOf(plans: ReadonlyMap<string, Plan>, items: ItemRequest[]): { interval: Interval; count: number } {
  const plan = plans.get(items[0]!.plan_id)!;
  return { interval: plan.interval, count: plan.interval_count };
}
