import type { DomainEvent } from '@kith/platform';
import { billingError } from './errors.js';
import { gatewayFailure } from './gateway-errors.js';
import { Ledger, paymentUpdate, subscriptionsUpdated } from './ledger.js';
import type {
  CatalogueStore,
  ChargeResult,
  Clock,
  OpenPayment,
  PaymentGateway,
  PaymentPurpose,
  SubscriptionStore,
  SubscriptionTx,
} from './ports.js';
import { payable } from './status.js';
import { InvoiceStatus, PaymentStatus, SubscriptionStatus as S, type Invoice, type Payment, type Subscription } from './types.js';

/** What became of a recorded payment once the gateway answered. */
export type Settlement =
  | { state: 'completed'; payment: Payment }
  | { state: 'declined'; payment: Payment }
  | { state: 'awaiting_confirmation'; payment: Payment }
  | { state: 'canceled'; payment: Payment }
  /** Charged, but what it paid for could no longer be applied: given back. */
  | { state: 'refunded'; payment: Payment };

export interface SettlementOptions {
  /** How long one asker holds a recorded payment before another may ask the gateway about it. */
  leaseMs: number;
  /** How long a charge waits for the customer's confirmation before it is canceled. */
  confirmationWindowMs: number;
  /** How often a charge waiting for the customer is looked at again. */
  pollMs: number;
}

/** Applies an invoice paid to a locked subscription (ChangesService.settle). */
export type SettleInvoice = (tx: SubscriptionTx, invoice: Invoice, now: Date, events: DomainEvent[]) => Promise<void>;

/**
 * Payments made by a user's request on a subscription they hold: an upgrade charged now, an open
 * invoice paid, a pause ended early. Each is recorded and committed before the gateway is asked
 * (ChangesService does that with the subscription locked), then charged with its fixed idempotency
 * key, then settled in a second short transaction. Between the two nothing is held: whoever finds
 * the payment still pending (the request retried, or the scheduler once the asker's lease passed)
 * sends the very same request again (the gateway answers with the first charge, or charges now
 * if the first never reached it) and settles it. So a crash between charge and settle loses
 * nothing and a retry never charges twice. A charge whose purpose no longer holds when it is settled
 * (the subscription was canceled, changed or renewed meanwhile; the invoice was paid another way)
 * is refunded at the gateway, and the payment shows it (REFUNDED, amount_refunded, PAYMENT_UPDATE).
 */
export class SettlementsService {
  private settleInvoice: SettleInvoice | undefined;

  constructor(
    private readonly store: SubscriptionStore,
    private readonly catalogue: CatalogueStore,
    private readonly ledger: Ledger,
    private readonly gateway: PaymentGateway,
    private readonly clock: Clock,
    readonly options: SettlementOptions,
  ) {}

  /** How an invoice paid is applied (the changes service's rule, shared with renewals). */
  useInvoiceSettlement(settle: SettleInvoice): void {
    this.settleInvoice = settle;
  }

  /**
   * Asks the gateway about a recorded payment the caller holds the lease of, and settles it. The
   * first time the charge is made; after that, the same request is answered by the gateway with it.
   * An unknown outcome (gateway down or late) gives the lease up and throws the upstream error.
   */
  async charge(payment: OpenPayment): Promise<Settlement> {
    let result: ChargeResult;
    try {
      result = payment.gateway_payment_id
        ? await this.gateway.retrieve(payment.gateway_payment_id)
        : await this.gateway.charge(payment.charge_request);
    } catch (err) {
      await this.store.releasePayment(payment.id);
      throw gatewayFailure(err);
    }
    return this.settle(payment.id, result);
  }

  /** The answer a request gets for a settlement: the subscription, or the platform's error. */
  static answer(settlement: Settlement): void {
    const { payment } = settlement;
    switch (settlement.state) {
      case 'completed':
        return;
      case 'declined':
        throw billingError('CARD_DECLINED', { payment_id: payment.id });
      case 'awaiting_confirmation':
        throw billingError('CONFIRMATION_REQUIRED', { payment_id: payment.id });
      case 'canceled':
        throw billingError('INVALID_PAYMENT', { payment_id: payment.id });
      case 'refunded':
        // The subscription changed under the payment; the money went back.
        throw billingError('INVALID_SUBSCRIPTION', { payment_id: payment.id });
    }
  }

  /** Writes what the gateway answered for a payment; a charge that cannot be applied is refunded. */
  async settle(paymentId: string, result: ChargeResult): Promise<Settlement> {
    const now = this.clock.now();
    let refundDue = false;
    const settled = await this.store.withPayment(paymentId, async (tx, payment): Promise<Settlement> => {
      if (payment.status !== PaymentStatus.PENDING) {
        refundDue = payment.refund_due;
        return settledAlready(payment);
      }
      const userId = payment.user_id;
      const gatewayId = result.gatewayPaymentId ?? payment.gateway_payment_id;
      if (result.status === 'declined') {
        const failed = { ...payment, status: PaymentStatus.FAILED, error_code: 100054, gateway_payment_id: gatewayId };
        await tx.settlePayment(payment.id, { status: failed.status, error_code: 100054, gateway_payment_id: gatewayId });
        if (payment.purpose.kind !== 'invoice' && payment.invoice_id) await tx.setInvoiceStatus(payment.invoice_id, InvoiceStatus.VOID);
        await tx.emit([paymentUpdate(userId, failed)]);
        return { state: 'declined', payment: failed };
      }
      if (result.status !== 'succeeded') {
        const waiting = { ...payment, gateway_payment_id: gatewayId, error_code: 100047 };
        await tx.settlePayment(payment.id, {
          status: PaymentStatus.PENDING,
          error_code: 100047,
          gateway_payment_id: gatewayId,
          lookAgainMs: this.options.pollMs,
        });
        if (!payment.gateway_payment_id) await tx.emit([paymentUpdate(userId, waiting)]);
        return { state: 'awaiting_confirmation', payment: waiting };
      }
      const paid = { ...payment, status: PaymentStatus.COMPLETED, error_code: null, gateway_payment_id: gatewayId };
      const invoice = payment.invoice_id ? await tx.invoice(payment.invoice_id) : undefined;
      if (invoice && (await this.applicable(tx.subscription, payment.purpose, invoice))) {
        await tx.settlePayment(payment.id, { status: PaymentStatus.COMPLETED, error_code: null, gateway_payment_id: gatewayId });
        await this.apply(tx, payment.purpose, invoice, now, [paymentUpdate(userId, paid)]);
        return { state: 'completed', payment: paid };
      }
      // Taken, and nothing left to apply it to: it goes back (the refund itself follows the commit).
      await tx.settlePayment(payment.id, {
        status: PaymentStatus.COMPLETED,
        error_code: null,
        gateway_payment_id: gatewayId,
        refund_due: true,
      });
      if (invoice && payment.purpose.kind !== 'invoice') await tx.setInvoiceStatus(invoice.id, InvoiceStatus.VOID);
      await tx.emit([paymentUpdate(userId, paid)]);
      refundDue = true;
      return { state: 'refunded', payment: paid };
    });
    if (!settled) throw billingError('INVALID_PAYMENT');
    if (refundDue) {
      const refunded = await this.refund(settled.payment).catch(() => undefined);
      return { state: 'refunded', payment: refunded ?? settled.payment };
    }
    return settled;
  }

  /**
   * Gives a charge back at the gateway (its refund key is fixed: asking twice refunds once) and
   * records it. Left due when the gateway does not answer: the scheduler asks again.
   */
  async refund(payment: Payment): Promise<Payment | undefined> {
    if (!payment.gateway_payment_id) return this.store.markRefunded(payment.id, payment.amount, (p) => [paymentUpdate(p.user_id, p)]);
    try {
      const { amount } = await this.gateway.refund(payment.gateway_payment_id, `kith_refund_${payment.id}`);
      return await this.store.markRefunded(payment.id, amount, (p) => [paymentUpdate(p.user_id, p)]);
    } catch (err) {
      await this.store.releasePayment(payment.id);
      throw gatewayFailure(err);
    }
  }

  /**
   * The scheduler's part: recorded payments nobody is asking about (their asker died, or gave up
   * when the gateway did not answer, or they wait for the customer) are asked about and settled;
   * charges waiting for the customer past the window are canceled; refunds due are made.
   */
  async recover(max: number, onError: (err: unknown, paymentId: string) => void): Promise<number> {
    let done = 0;
    const seen = new Set<string>();
    while (done < max) {
      const payment = await this.store.nextUnsettled(this.options.leaseMs);
      if (!payment || seen.has(payment.id)) break;
      seen.add(payment.id);
      done += 1;
      try {
        const waited = this.clock.now().getTime() - payment.created_at.getTime();
        if (payment.gateway_payment_id && waited > this.options.confirmationWindowMs) await this.abandon(payment);
        else await this.charge(payment);
      } catch (err) {
        onError(err, payment.id);
      }
    }
    while (done < max) {
      const payment = await this.store.nextRefundDue(this.options.leaseMs);
      if (!payment || seen.has(payment.id)) break;
      seen.add(payment.id);
      done += 1;
      await this.refund(payment).catch((err: unknown) => onError(err, payment.id));
    }
    return done;
  }

  /** A charge the customer never confirmed: canceled at the gateway (or settled, if it went through meanwhile). */
  private async abandon(payment: OpenPayment): Promise<void> {
    let result: ChargeResult;
    try {
      result = await this.gateway.cancel(payment.gateway_payment_id!, `kith_cancel_${payment.id}`);
    } catch (err) {
      await this.store.releasePayment(payment.id);
      throw gatewayFailure(err);
    }
    if (result.status === 'succeeded') {
      await this.settle(payment.id, result);
      return;
    }
    await this.store.withPayment(payment.id, async (tx, current) => {
      if (current.status !== PaymentStatus.PENDING) return;
      await tx.settlePayment(current.id, { status: PaymentStatus.CANCELED });
      if (current.purpose.kind !== 'invoice' && current.invoice_id) await tx.setInvoiceStatus(current.invoice_id, InvoiceStatus.VOID);
      await tx.emit([paymentUpdate(current.user_id, { ...current, status: PaymentStatus.CANCELED })]);
    });
  }

  /** Whether what the payment was for still holds on the subscription as it is now. */
  private async applicable(s: Subscription, purpose: PaymentPurpose, invoice: Invoice): Promise<boolean> {
    if (invoice.status !== InvoiceStatus.OPEN) return false;
    switch (purpose.kind) {
      case 'change':
        return s.status === S.ACTIVE && s.current_period_end.toISOString() === purpose.period_end && sameItems(s.items, purpose.from);
      case 'invoice':
        return payable(s.status);
      case 'resume':
        return s.status === S.PAUSED;
    }
  }

  private async apply(tx: SubscriptionTx, purpose: PaymentPurpose, invoice: Invoice, now: Date, events: DomainEvent[]): Promise<void> {
    const s = tx.subscription;
    if (purpose.kind === 'change') {
      await tx.setInvoiceStatus(invoice.id, InvoiceStatus.PAID);
      await tx.replaceItems(purpose.items.map((i) => ({ id: this.ledger.newId(), plan_id: i.plan_id, quantity: i.quantity })));
      await tx.update({ renewal_mutations: null });
      await this.ledger.reconcile(tx, await this.catalogue.plans(purpose.items.map((i) => i.plan_id)));
      await tx.emit([subscriptionsUpdated(s.user_id), ...events]);
      return;
    }
    if (purpose.kind === 'invoice' && purpose.source_id !== s.payment_source_id) await tx.update({ payment_source_id: purpose.source_id });
    if (!this.settleInvoice) throw new Error('invoice settlement not wired');
    await this.settleInvoice(tx, invoice, now, events);
  }
}

function settledAlready(payment: OpenPayment): Settlement {
  if (payment.refund_due || payment.status === PaymentStatus.REFUNDED) return { state: 'refunded', payment };
  if (payment.status === PaymentStatus.COMPLETED) return { state: 'completed', payment };
  if (payment.status === PaymentStatus.CANCELED) return { state: 'canceled', payment };
  return { state: 'declined', payment };
}

/** Items as plan and quantity, in any order. */
export function sameItems(a: { plan_id: string; quantity: number }[], b: { plan_id: string; quantity: number }[]): boolean {
  const key = (items: { plan_id: string; quantity: number }[]) =>
    items
      .map((i) => `${i.plan_id}x${i.quantity}`)
      .sort()
      .join();
  return key(a) === key(b);
}
