import type { DomainEvent } from '@kith/platform';
import { gatewayFailure } from './gateway-errors.js';
import type { PaymentSourcesService } from './payment-sources.service.js';
import type { PricedInvoice } from './pricing.js';
import type { ChargeRequest, ChargeResult, Ids, PaymentGateway, SlotRecord, SubscriptionTx } from './ports.js';
import { paymentUpdate } from './purchase.service.js';
import { chargeOutcome, invoiceRecord, paymentRecord } from './records.js';
import { grantsPerks } from './status.js';
import { PaymentStatus, type Invoice, type Payment, type Plan, type Subscription, type SubscriptionItem } from './types.js';
import { slotView } from './views.js';

/** What several flows do with a locked subscription: charge it, bill it, grant its slots and perks. */
export class Ledger {
  constructor(
    private readonly gateway: PaymentGateway,
    private readonly sources: PaymentSourcesService,
    private readonly ids: Ids,
  ) {}

  /** A payment source of the user's (unknown otherwise). */
  source(userId: string, id: string) {
    return this.sources.get(userId, id);
  }

  newId(): string {
    return this.ids.next();
  }

  invoice(subscription: Subscription, priced: PricedInvoice, period: { start: Date; end: Date }, reason: Invoice['reason']): Invoice {
    return invoiceRecord(this.ids, priced, { subscriptionId: subscription.id, start: period.start, end: period.end, reason });
  }

  /**
   * Charges an invoice with a payment source of the user's. `key` is the gateway idempotency key:
   * the same key for every attempt at the same payment, so a retry (or a restarted scheduler)
   * never charges twice. Gateway failures throw (nothing is known); a decline is a result.
   */
  async charge(
    subscription: Subscription,
    invoice: Invoice,
    sourceId: string,
    options: {
      paymentId: string;
      key: string;
      offSession: boolean;
      returnUrl?: string | undefined;
      description: string;
      now: Date;
      /** Whether the payment id goes to the gateway: not when the key must name the same request across attempts. */
      stableRequest?: boolean;
    },
  ): Promise<{ result: ChargeResult; payment: Payment }> {
    const source = await this.sources.get(subscription.user_id, sourceId);
    let result: ChargeResult;
    try {
      result =
        invoice.total <= 0
          ? { status: 'succeeded', gatewayPaymentId: '' }
          : await this.gateway.charge({
              customerId: await this.sources.customerOf(subscription.user_id),
              gatewaySourceId: source.gateway_source_id,
              amount: invoice.total,
              currency: invoice.currency,
              description: options.description,
              idempotencyKey: options.key,
              returnUrl: options.returnUrl,
              offSession: options.offSession,
              metadata: {
                user_id: subscription.user_id,
                subscription_id: subscription.id,
                ...(options.stableRequest ? { period_start: invoice.period_start.toISOString() } : { payment_id: options.paymentId }),
              },
            });
    } catch (err) {
      throw gatewayFailure(err);
    }
    const first = invoice.items[0];
    const payment = paymentRecord({
      id: options.paymentId,
      userId: subscription.user_id,
      money: invoice,
      ...chargeOutcome(result),
      description: options.description,
      idempotencyKey: options.key,
      createdAt: options.now,
      subscriptionId: subscription.id,
      invoiceId: invoice.id,
      sourceId: source.id,
      skuId: first?.sku_id,
      planId: first?.plan_id,
      gatewayPaymentId: result.gatewayPaymentId,
    });
    return { result, payment };
  }

  /**
   * A payment about to be made by a user's request, and the exact request the gateway is sent for
   * it (and sent again, unchanged, by whoever resumes it): its idempotency key is fixed here.
   */
  async prepare(
    subscription: Subscription,
    invoice: Invoice,
    sourceId: string,
    options: { paymentId: string; returnUrl?: string | undefined; description: string; now: Date },
  ): Promise<{ payment: Payment; request: ChargeRequest }> {
    const source = await this.sources.get(subscription.user_id, sourceId);
    const key = `kith_payment_${options.paymentId}`;
    const request: ChargeRequest = {
      customerId: await this.sources.customerOf(subscription.user_id),
      gatewaySourceId: source.gateway_source_id,
      amount: invoice.total,
      currency: invoice.currency,
      description: options.description,
      idempotencyKey: key,
      ...(options.returnUrl ? { returnUrl: options.returnUrl } : {}),
      offSession: false,
      metadata: { user_id: subscription.user_id, subscription_id: subscription.id, payment_id: options.paymentId },
    };
    const first = invoice.items.find((l) => l.amount > 0) ?? invoice.items[0];
    const payment = paymentRecord({
      id: options.paymentId,
      userId: subscription.user_id,
      money: invoice,
      status: PaymentStatus.PENDING,
      description: options.description,
      idempotencyKey: key,
      createdAt: options.now,
      subscriptionId: subscription.id,
      invoiceId: invoice.id,
      sourceId: source.id,
      skuId: first?.sku_id,
      planId: first?.plan_id,
    });
    return { payment, request };
  }

  /** Cancels a charge waiting for the customer; where it stands after (it may have gone through). */
  async cancel(gatewayPaymentId: string, key: string): Promise<ChargeResult> {
    try {
      return await this.gateway.cancel(gatewayPaymentId, key);
    } catch (err) {
      throw gatewayFailure(err);
    }
  }

  async retrieve(gatewayPaymentId: string): Promise<ChargeResult> {
    try {
      return await this.gateway.retrieve(gatewayPaymentId);
    } catch (err) {
      throw gatewayFailure(err);
    }
  }

  /**
   * Makes the subscription's slots what its items and status grant: a slot per boost a plan
   * includes while the subscription grants perks, none otherwise. Extra slots go canceled ones
   * first, then unapplied ones, then applied ones (their boosts end). Marks the guilds and the
   * user whose perks changed, and writes the slot events.
   */
  async reconcile(tx: SubscriptionTx, plans: ReadonlyMap<string, Plan>): Promise<void> {
    const s = tx.subscription;
    const wanted = grantsPerks(s.status) ? slotsGranted(plans, s.items) : 0;
    const slots = await tx.slots();
    const events: DomainEvent[] = [];
    if (wanted > slots.length) {
      const ids = Array.from({ length: wanted - slots.length }, () => this.ids.next());
      await tx.addSlots(ids);
      for (const id of ids)
        events.push(
          slotEvent('USER_PREMIUM_GUILD_SUBSCRIPTION_SLOT_CREATE', {
            id,
            user_id: s.user_id,
            subscription_id: s.id,
            canceled: false,
            cooldown_ends_at: null,
            boost: null,
          }),
        );
    } else if (wanted < slots.length) {
      const order = [...slots].sort((a, b) => rank(a) - rank(b));
      const gone = order.slice(0, slots.length - wanted);
      const guilds = await tx.removeSlots(gone.map((g) => g.id));
      for (const slot of gone) events.push(slotEvent('USER_PREMIUM_GUILD_SUBSCRIPTION_SLOT_DELETE', slot));
      for (const slot of gone)
        if (slot.boost)
          events.push({
            name: 'GUILD_APPLIED_BOOSTS_UPDATE',
            audience: { guilds: [slot.boost.guild_id] },
            data: { id: slot.boost.id, guild_id: slot.boost.guild_id, user_id: s.user_id, ended: true, pause_ends_at: null },
          });
      for (const guild of guilds) await tx.markPerks('guild', guild);
    }
    await tx.markPerks('user', s.user_id);
    await tx.emit(events);
  }
}

/** Boost slots the items grant: the premium tier's included ones and one per boost add-on. */
export function slotsGranted(plans: ReadonlyMap<string, Plan>, items: Pick<SubscriptionItem, 'plan_id' | 'quantity'>[]): number {
  return items.reduce((n, i) => n + (plans.get(i.plan_id)?.premium_guild_slots ?? 0) * i.quantity, 0);
}

const rank = (slot: SlotRecord) => (slot.canceled ? 0 : slot.boost ? 2 : 1);

export function slotEvent(name: string, slot: SlotRecord): DomainEvent {
  return { name, audience: { users: [slot.user_id] }, data: slotView(slot) };
}

export const subscriptionsUpdated = (userId: string): DomainEvent => ({
  name: 'USER_SUBSCRIPTIONS_UPDATE',
  audience: { users: [userId] },
  data: null,
});

export { paymentUpdate };
