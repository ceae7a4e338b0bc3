import { intervalOf } from './changes.service.js';
import { invoiceRecord } from './records.js';
import { billingError } from './errors.js';
import type { PaymentSourcesService } from './payment-sources.service.js';
import type { CatalogueStore, Clock, CreditsStore, Ids, SubscriptionStore } from './ports.js';
import {
  addInterval,
  applyCredits,
  applyOffer,
  priceChange,
  priceItems,
  resolveCurrency,
  type ItemRequest,
  type PricedInvoice,
} from './pricing.js';
import { checkItems } from './purchase.service.js';
import { SubscriptionStatus as S, type Invoice, type Subscription } from './types.js';

export interface PreviewRequest {
  items?: ItemRequest[] | undefined;
  currency?: string | undefined;
  payment_source_id?: string | null | undefined;
  apply_entitlements?: boolean | undefined;
  renewal?: boolean | undefined;
  user_discount_offer_id?: string | undefined;
}

/**
 * Invoices that are not (yet) billed: a new purchase's, a subscription's next one, and what a change
 * would cost now (prorated) or at renewal. With `apply_entitlements`, the user's entitlement credits
 * (unconsumed entitlements to a plan's period) pay the lines of their plan (ENTITLEMENT discounts);
 * a `user_discount_offer_id` takes its discount off the plans it names (listed in
 * applied_discount_ids and applied_user_discounts).
 */
export class PreviewsService {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly catalogue: CatalogueStore,
    private readonly sources: PaymentSourcesService,
    private readonly credits: CreditsStore,
    private readonly ids: Ids,
    private readonly clock: Clock,
  ) {}

  async forPurchase(userId: string, request: PreviewRequest & { items: ItemRequest[] }): Promise<Invoice> {
    if (request.items.length === 0) throw billingError('ITEMS_REQUIRED');
    if (request.payment_source_id) await this.ownSource(userId, request.payment_source_id);
    const plans = await this.catalogue.plans(request.items.map((i) => i.plan_id));
    checkItems(plans, request.items);
    const currency = resolveCurrency([...plans.values()], request.currency);
    const now = this.clock.now();
    const plan = plans.get(request.items[0]!.plan_id)!;
    const priced = await this.discounted(userId, priceItems(plans, request.items, currency), request, now);
    return this.invoice(null, priced, now, addInterval(now, plan.interval, plan.interval_count));
  }

  /** The subscription's next invoice: its renewal, with the changes waiting for it. */
  async upcoming(userId: string, id: string): Promise<Invoice> {
    const s = await this.subscription(userId, id);
    return this.renewal(s, s.renewal_mutations?.items ?? s.items, {});
  }

  async forChange(userId: string, id: string, request: PreviewRequest): Promise<Invoice> {
    const s = await this.subscription(userId, id);
    if (request.currency && request.currency !== s.currency) throw billingError('CANNOT_PREVIEW');
    if (request.payment_source_id) await this.ownSource(userId, request.payment_source_id);
    const items = request.items ?? s.renewal_mutations?.items ?? s.items;
    if (items.length === 0) throw billingError('ITEMS_REQUIRED');
    if (request.renewal || !request.items) return this.renewal(s, items, request);
    if (s.status !== S.ACTIVE) throw billingError('CANNOT_PREVIEW');
    const plans = await this.catalogue.plans([...items, ...s.items].map((i) => i.plan_id));
    checkItems(new Map([...plans].filter(([pid]) => items.some((i) => i.plan_id === pid))), items);
    const now = this.clock.now();
    const change = priceChange(plans, s.items, items, s.currency, { start: s.current_period_start, end: s.current_period_end }, now);
    return this.invoice(s.id, await this.discounted(userId, change, request, now), now, s.current_period_end);
  }

  private async renewal(s: Subscription, items: ItemRequest[], request: PreviewRequest): Promise<Invoice> {
    const plans = await this.catalogue.plans(items.map((i) => i.plan_id));
    checkItems(plans, items);
    const start = s.status === S.PAUSED && s.pause_ends_at ? s.pause_ends_at : s.current_period_end;
    const priced = await this.discounted(s.user_id, priceItems(plans, items, s.currency), request, start);
    return this.invoice(s.id, priced, start, addInterval(start, ...intervalOf(plans, { items })));
  }

  /** The invoice with the credits and the discount offer the request asks for. */
  private async discounted(userId: string, priced: PricedInvoice, request: PreviewRequest, at: Date): Promise<PricedInvoice> {
    let out = priced;
    if (request.user_discount_offer_id) {
      const offer = await this.credits.discountOffer(userId, request.user_discount_offer_id);
      if (!offer) throw billingError('UNKNOWN_USER_DISCOUNT');
      out = applyOffer(out, offer, this.clock.now());
    }
    if (request.apply_entitlements) out = applyCredits(out, await this.credits.credits(userId, at)).priced;
    return out;
  }

  private async subscription(userId: string, id: string): Promise<Subscription> {
    const s = await this.store.get(userId, id);
    if (!s) throw billingError('UNKNOWN_SUBSCRIPTION');
    // An ended or canceled subscription has no invoice coming.
    if (s.status === S.ENDED || s.status === S.CANCELED) throw billingError('CANNOT_PREVIEW');
    return s;
  }

  private async ownSource(userId: string, id: string): Promise<void> {
    await this.sources.get(userId, id).catch(() => {
      throw billingError('INVALID_PAYMENT_SOURCE');
    });
  }

  private invoice(subscriptionId: string | null, priced: PricedInvoice, start: Date, end: Date): Invoice {
    return invoiceRecord(this.ids, priced, { subscriptionId, start, end, reason: 'preview' });
  }
}
