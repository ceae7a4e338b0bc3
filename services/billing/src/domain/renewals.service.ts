import type { DomainEvent } from '@kith/platform';
import { intervalOf, type ChangesService } from './changes.service.js';
import { isBillingError } from './errors.js';
import { Ledger, paymentUpdate, subscriptionsUpdated } from './ledger.js';
import type { CatalogueStore, Clock, SubscriptionStore, SubscriptionTx } from './ports.js';
import { addInterval, priceItems } from './pricing.js';
import { nextStatus } from './status.js';
import { InvoiceStatus, PaymentStatus, SubscriptionStatus as S, type Invoice, type Plan, type Subscription } from './types.js';

const DAY = 86_400_000;
/** After the failure that moved a subscription into a status, when its invoice is tried again. */
const RETRY_AFTER: Partial<Record<S, number>> = { [S.PAST_DUE]: 1 * DAY, [S.BILLING_RETRY]: 3 * DAY, [S.ACCOUNT_HOLD]: 7 * DAY };
/** How long a purchase waits for the customer's confirmation before it is abandoned. */
const CONFIRMATION_WINDOW = 1 * DAY;
/** When a subscription whose gateway did not answer is looked at again. */
const GATEWAY_RETRY_MS = 60_000;

/**
 * The scheduler's work on one due subscription: renew it at the end of its period (with the
 * changes waiting for renewal, charged off session), retry what failed, end what was canceled,
 * pause and unpause, and settle purchases the customer confirmed. Each runs in the transaction
 * that holds the subscription (FOR UPDATE SKIP LOCKED). A renewal's gateway idempotency key names
 * the period and the attempt, so a scheduler killed after charging and run again is answered the
 * first charge, not charged again.
 */
export class RenewalsService {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly catalogue: CatalogueStore,
    private readonly ledger: Ledger,
    private readonly changes: ChangesService,
    private readonly clock: Clock,
  ) {}

  /** Works through every subscription due now, up to `max`; returns how many were handled. */
  async runDue(max: number): Promise<number> {
    let done = 0;
    while (done < max) {
      const now = this.clock.now();
      let failedId: string | undefined;
      const found = await this.store
        .nextDue(now, async (tx) => {
          failedId = tx.subscription.id;
          await this.handle(tx, now);
        })
        .catch(async (err: unknown) => {
          // The gateway did not answer (or another failure): nothing was written; look again later.
          if (failedId) await this.store.postpone(failedId, new Date(now.getTime() + GATEWAY_RETRY_MS));
          else throw err;
          return true;
        });
      if (!found) break;
      done += 1;
    }
    return done;
  }

  private async handle(tx: SubscriptionTx, now: Date): Promise<void> {
    const s = tx.subscription;
    // A payment a request made is still being settled (SettlementsService): it decides first, so
    // an invoice is never charged by a renewal and a request at once.
    if (await tx.openPayment()) {
      await tx.update({ next_action_at: new Date(now.getTime() + GATEWAY_RETRY_MS) });
      return;
    }
    switch (s.status) {
      case S.UNPAID:
        return this.awaitConfirmation(tx, now);
      case S.ACTIVE:
        return this.renew(tx, s.current_period_end, now);
      case S.PAUSED:
        return this.renew(tx, now, now);
      case S.PAST_DUE:
      case S.BILLING_RETRY:
      case S.ACCOUNT_HOLD:
        return this.retry(tx, now);
      case S.CANCELED:
        return this.end(tx, [], now);
      case S.PAUSE_PENDING: {
        const endsAt = new Date(s.current_period_end.getTime() + (s.pause_duration_days ?? 30) * DAY);
        await tx.update({
          status: nextStatus(s.status, 'period_end'),
          pause_ends_at: endsAt,
          pause_duration_days: null,
          next_action_at: endsAt,
        });
        await this.ledger.reconcile(tx, await this.plansOf(s));
        await tx.emit([subscriptionsUpdated(s.user_id)]);
        return;
      }
      default:
        await tx.update({ next_action_at: null });
    }
  }

  /** A new period from `start`: the waiting changes applied, canceled boost slots dropped, charged. */
  private async renew(tx: SubscriptionTx, start: Date, now: Date): Promise<void> {
    const s = tx.subscription;
    let items = s.renewal_mutations?.items ?? s.items.map((i) => ({ plan_id: i.plan_id, quantity: i.quantity }));
    const plans = await this.catalogue.plans(items.map((i) => i.plan_id));
    items = await this.withoutCanceledSlots(tx, plans, items);
    if (items.length === 0) return this.end(tx, [], now);
    if (s.renewal_mutations || items.length !== s.items.length || items.some((i, n) => i.quantity !== s.items[n]?.quantity)) {
      await tx.replaceItems(items.map((i) => ({ id: this.ledger.newId(), plan_id: i.plan_id, quantity: i.quantity })));
      await tx.update({ renewal_mutations: null });
    }
    const end = addInterval(start, ...intervalOf(plans, { items }));
    const invoice = this.ledger.invoice(s, priceItems(plans, items, s.currency), { start, end }, 'renewal');
    await tx.insertInvoice(invoice);
    await this.attempt(tx, invoice, plans, now);
  }

  private async retry(tx: SubscriptionTx, now: Date): Promise<void> {
    const invoice = await tx.openInvoice();
    if (!invoice) return this.renew(tx, tx.subscription.current_period_end, now);
    await this.attempt(tx, invoice, await this.plansOf(tx.subscription), now);
  }

  private async attempt(tx: SubscriptionTx, invoice: Invoice, plans: ReadonlyMap<string, Plan>, now: Date): Promise<void> {
    const s = tx.subscription;
    if (!s.payment_source_id) return this.fail(tx, invoice, plans, now, []);
    const paymentId = this.ledger.newId();
    const { result, payment } = await this.ledger
      .charge(s, invoice, s.payment_source_id, {
        paymentId,
        // One key per period and attempt: a restarted scheduler re-asks the same charge.
        key: `kith_renewal_${s.id}_${invoice.period_start.getTime()}_${s.failed_renewals}`,
        offSession: true,
        // A retried attempt sends the very same request, or the gateway refuses the reused key.
        stableRequest: true,
        description: invoice.items.map((l) => plans.get(l.plan_id)?.name ?? l.plan_id).join(', '),
        now,
      })
      .catch((err: unknown) => {
        // A source removed since is a failed payment; anything else (the gateway) is retried later.
        if (isBillingError(err, 'UNKNOWN_PAYMENT_SOURCE')) return { result: null, payment: null };
        throw err;
      });
    if (!result || !payment) return this.fail(tx, invoice, plans, now, []);
    await tx.insertPayment(payment.status === PaymentStatus.PENDING ? { ...payment, status: PaymentStatus.FAILED } : payment);
    const events: DomainEvent[] = [paymentUpdate(s.user_id, payment)];
    if (result.status === 'succeeded') return this.changes.settle(tx, invoice, now, events);
    return this.fail(tx, invoice, plans, now, events);
  }

  private async fail(
    tx: SubscriptionTx,
    invoice: Invoice,
    plans: ReadonlyMap<string, Plan>,
    now: Date,
    events: DomainEvent[],
  ): Promise<void> {
    const s = tx.subscription;
    const to = nextStatus(s.status === S.PAUSED ? S.ACTIVE : s.status, 'payment_failed');
    if (to === S.ENDED) {
      await tx.setInvoiceStatus(invoice.id, InvoiceStatus.UNCOLLECTIBLE);
      return this.end(tx, events, now);
    }
    await tx.update({
      status: to,
      failed_renewals: s.failed_renewals + 1,
      next_action_at: new Date(now.getTime() + (RETRY_AFTER[to] ?? DAY)),
    });
    await this.ledger.reconcile(tx, plans);
    await tx.emit([subscriptionsUpdated(s.user_id), ...events]);
  }

  private async end(tx: SubscriptionTx, events: DomainEvent[], now: Date): Promise<void> {
    const s = tx.subscription;
    await tx.update({ status: S.ENDED, next_action_at: null, canceled_at: s.canceled_at ?? now });
    await this.ledger.reconcile(tx, await this.plansOf(s));
    await tx.emit([subscriptionsUpdated(s.user_id), ...events]);
  }

  /** A purchase waiting for the customer's confirmation: settled once confirmed, abandoned after a day. */
  private async awaitConfirmation(tx: SubscriptionTx, now: Date): Promise<void> {
    const s = tx.subscription;
    const pending = await tx.pendingPayment();
    const invoice = await tx.openInvoice();
    if (pending?.gateway_payment_id && invoice && (await this.ledger.retrieve(pending.gateway_payment_id)).status === 'succeeded') {
      await tx.setPayment(pending.id, { status: PaymentStatus.COMPLETED, error_code: null });
      return this.changes.settle(tx, invoice, now, [paymentUpdate(s.user_id, { ...pending, status: PaymentStatus.COMPLETED })]);
    }
    if (now.getTime() - s.created_at.getTime() < CONFIRMATION_WINDOW) {
      await tx.update({ next_action_at: new Date(now.getTime() + GATEWAY_RETRY_MS) });
      return;
    }
    // Canceled at the gateway too, so the customer can no longer confirm it (and pay for nothing);
    // confirmed in the meantime, it is settled after all.
    const stands = pending?.gateway_payment_id ? await this.ledger.cancel(pending.gateway_payment_id, `kith_cancel_${pending.id}`) : null;
    if (pending && invoice && stands?.status === 'succeeded') {
      await tx.setPayment(pending.id, { status: PaymentStatus.COMPLETED, error_code: null });
      return this.changes.settle(tx, invoice, now, [paymentUpdate(s.user_id, { ...pending, status: PaymentStatus.COMPLETED })]);
    }
    if (pending) await tx.setPayment(pending.id, { status: PaymentStatus.CANCELED });
    if (invoice) await tx.setInvoiceStatus(invoice.id, InvoiceStatus.VOID);
    await tx.update({ status: nextStatus(s.status, 'abandon'), next_action_at: null });
    await tx.emit([subscriptionsUpdated(s.user_id)]);
  }

  /** Boost add-ons lose one unit per canceled slot at renewal (a tier's included slots cost nothing). */
  private async withoutCanceledSlots(tx: SubscriptionTx, plans: ReadonlyMap<string, Plan>, items: { plan_id: string; quantity: number }[]) {
    const canceled = (await tx.slots()).filter((slot) => slot.canceled);
    if (canceled.length === 0) return items;
    await tx.removeSlots(canceled.map((c) => c.id)).then((guilds) => Promise.all(guilds.map((g) => tx.markPerks('guild', g))));
    let drop = canceled.length;
    return items
      .map((i) => {
        const plan = plans.get(i.plan_id);
        if (!plan || plan.premium_type > 0 || plan.premium_guild_slots === 0 || drop === 0) return i;
        const less = Math.min(drop, i.quantity);
        drop -= less;
        return { ...i, quantity: i.quantity - less };
      })
      .filter((i) => i.quantity > 0);
  }

  private plansOf(s: Subscription) {
    return this.catalogue.plans(s.items.map((i) => i.plan_id));
  }
}
