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
  const subtotal = lines.reduce((sum, l) => sum + l.amount, 0);
  const bps = prices[0]?.tax_bps ?? 0;
  const inclusive = prices[0]?.tax_inclusive ?? true;
  const exponent = prices[0]?.exponent ?? 2;
  const taxable = Math.max(0, subtotal);
  const tax = inclusive ? Math.round((taxable * bps) / (10_000 + bps)) : Math.round((taxable * bps) / 10_000);
  return { currency, lines, subtotal, tax, total: inclusive ? subtotal : subtotal + tax, tax_inclusive: inclusive, exponent };
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
