import { billingError } from './errors.js';
import type { CatalogueStore, Clock, Ids, SubscriptionStore } from './ports.js';
import { SubscriptionStatus as S } from './types.js';

export interface Entitlement {
  id: string;
  user_id: string;
  sku_id: string;
  application_id: string;
  subscription_id: string;
  type: number;
  starts_at: Date;
  ends_at: Date | null;
}

export interface EntitlementStore {
  /** Records the reward; false when the subscription already has one. */
  grantOnce(entitlement: Entitlement): Promise<boolean>;
}

/** PREMIUM_PURCHASE: an entitlement claimed for free through a premium subscription. */
const PREMIUM_PURCHASE = 7;

/**
 * Claim Subscription Promotion Reward: an active premium-tier subscription earns its reward once,
 * an entitlement to its tier for the paid period; anything else is not eligible.
 */
export class PromotionsService {
  constructor(
    private readonly subscriptions: SubscriptionStore,
    private readonly catalogue: CatalogueStore,
    private readonly entitlements: EntitlementStore,
    private readonly ids: Ids,
    private readonly clock: Clock,
  ) {}

  async claim(userId: string, subscriptionId: string): Promise<{ eligible: boolean; reason: string; entitlement?: Entitlement }> {
    const s = await this.subscriptions.get(userId, subscriptionId);
    if (!s) throw billingError('UNKNOWN_SUBSCRIPTION');
    const plans = await this.catalogue.plans(s.items.map((i) => i.plan_id));
    const tier = [...plans.values()].find((p) => p.premium_type > 0);
    const sku = tier && (await this.catalogue.sku(tier.sku_id));
    if (s.status !== S.ACTIVE || !tier || !sku) return notEligible;
    const entitlement: Entitlement = {
      id: this.ids.next(),
      user_id: userId,
      sku_id: sku.id,
      application_id: sku.application_id,
      subscription_id: s.id,
      type: PREMIUM_PURCHASE,
      starts_at: this.clock.now(),
      ends_at: s.current_period_end,
    };
    if (!(await this.entitlements.grantOnce(entitlement))) return notEligible;
    return { eligible: true, reason: 'user_eligible_for_reward', entitlement };
  }
}

const notEligible = { eligible: false, reason: 'user_not_eligible_for_experiment' };

export function entitlementView(e: Entitlement) {
  return {
    id: e.id,
    type: e.type,
    sku_id: e.sku_id,
    application_id: e.application_id,
    user_id: e.user_id,
    deleted: false,
    starts_at: e.starts_at.toISOString(),
    ends_at: e.ends_at?.toISOString() ?? null,
    promotion_id: null,
    subscription_id: e.subscription_id,
    gift_code_flags: 0,
  };
}
