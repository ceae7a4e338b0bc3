import type { PricedInvoice } from './pricing.js';
import type { ChargeResult, Ids } from './ports.js';
import { InvoiceStatus, PaymentStatus, type Invoice, type Payment } from './types.js';

/** What a payment takes: an invoice's (or a priced invoice's) total, tax and currency. */
export type PaymentMoney = Pick<Invoice, 'total' | 'tax' | 'tax_inclusive' | 'currency'>;

/**
 * A payment record, built the same way by every flow that makes one (a purchase, a change or an
 * invoice paid, a renewal, a purchase given up): what is not known is null, nothing refunded yet
 * unless said.
 */
export function paymentRecord(p: {
  id: string;
  userId: string;
  money: PaymentMoney;
  status: PaymentStatus;
  description: string;
  idempotencyKey: string;
  createdAt: Date;
  errorCode?: number | null;
  subscriptionId?: string | null;
  invoiceId?: string | null;
  sourceId?: string | null;
  skuId?: string | null;
  planId?: string | null;
  gatewayPaymentId?: string | null;
  amountRefunded?: number;
}): Payment {
  return {
    id: p.id,
    user_id: p.userId,
    subscription_id: p.subscriptionId ?? null,
    invoice_id: p.invoiceId ?? null,
    payment_source_id: p.sourceId ?? null,
    amount: p.money.total,
    tax: p.money.tax,
    tax_inclusive: p.money.tax_inclusive,
    currency: p.money.currency,
    status: p.status,
    description: p.description,
    sku_id: p.skuId ?? null,
    plan_id: p.planId ?? null,
    gateway_payment_id: p.gatewayPaymentId || null,
    idempotency_key: p.idempotencyKey,
    error_code: p.errorCode ?? null,
    amount_refunded: p.amountRefunded ?? 0,
    created_at: p.createdAt,
  };
}

/**
 * A charge's answer as a payment's status and error code: taken, declined (100054), waiting for
 * the customer to confirm (100047), or still processing.
 */
export function chargeOutcome(result: ChargeResult): { status: PaymentStatus; errorCode: number | null } {
  switch (result.status) {
    case 'succeeded':
      return { status: PaymentStatus.COMPLETED, errorCode: null };
    case 'declined':
      return { status: PaymentStatus.FAILED, errorCode: 100054 };
    case 'requires_action':
      return { status: PaymentStatus.PENDING, errorCode: 100047 };
    default:
      return { status: PaymentStatus.PENDING, errorCode: null };
  }
}

/**
 * An invoice of a priced invoice over a period, its lines given ids: one builder for purchases,
 * changes, renewals and previews. The discounts a preview applied ride along when there are any.
 */
export function invoiceRecord(
  ids: Ids,
  priced: PricedInvoice,
  o: { subscriptionId: string | null; start: Date; end: Date; reason: Invoice['reason']; status?: InvoiceStatus },
): Invoice {
  return {
    id: ids.next(),
    subscription_id: o.subscriptionId,
    status: o.status ?? InvoiceStatus.OPEN,
    currency: priced.currency,
    subtotal: priced.subtotal,
    tax: priced.tax,
    total: priced.total,
    tax_inclusive: priced.tax_inclusive,
    items: priced.lines.map((l) => ({ ...l, id: ids.next() })),
    period_start: o.start,
    period_end: o.end,
    reason: o.reason,
    exponent: priced.exponent,
    ...(priced.applied_discount_ids ? { applied_discount_ids: priced.applied_discount_ids } : {}),
    ...(priced.applied_user_discounts ? { applied_user_discounts: priced.applied_user_discounts } : {}),
  };
}
