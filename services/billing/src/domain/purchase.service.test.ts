import { describe, expect, it } from 'vitest';
import { PaymentSourcesService } from './payment-sources.service.js';
import {
  PaymentGatewayUnavailable,
  type CatalogueStore,
  type ChargeRequest,
  type ChargeResult,
  type Claim,
  type NewSubscription,
  type PaymentGateway,
  type PaymentSourceStore,
  type PurchaseOutcome,
  type SubscriptionStore,
} from './ports.js';
import { PurchaseService, requestHash, type CreateSubscription } from './purchase.service.js';
import type { Payment, PaymentSource, Plan, Subscription } from './types.js';

const PLAN: Plan = {
  id: '10',
  sku_id: '1',
  name: 'Boost',
  interval: 1,
  interval_count: 1,
  premium_guild_slots: 1,
  premium_type: 0,
  prices: [{ currency: 'usd', amount: 499, tax_bps: 0, tax_inclusive: true, exponent: 2 }],
};

class FakeGateway implements PaymentGateway {
  charges: ChargeRequest[] = [];
  keysCharged = new Set<string>();
  failNext = 0;
  async createCustomer() {
    return 'cus_1';
  }
  async attachSource() {
    return { gatewaySourceId: 'pm_1', brand: 'visa', last4: '4242', expMonth: 1, expYear: 2030, country: 'US' };
  }
  async detachSource() {}
  async charge(request: ChargeRequest): Promise<ChargeResult> {
    this.charges.push(request);
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new PaymentGatewayUnavailable('unavailable', 'down');
    }
    await new Promise((r) => setTimeout(r, 5));
    this.keysCharged.add(request.idempotencyKey);
    return { status: 'succeeded', gatewayPaymentId: `pi_${request.idempotencyKey}` };
  }
  async retrieve(id: string): Promise<ChargeResult> {
    return { status: 'succeeded', gatewayPaymentId: id };
  }
  async refund() {
    return { amount: 0 };
  }
  async findCharge(): Promise<ChargeResult | null> {
    return null;
  }
  async cancel(): Promise<ChargeResult> {
    throw new Error('not used');
  }
}

const SOURCE: PaymentSource = {
  id: '77',
  user_id: 'u1',
  type: 1,
  payment_gateway: 1,
  gateway_source_id: 'pm_1',
  brand: 'visa',
  last_4: '4242',
  expires_month: 1,
  expires_year: 2030,
  country: 'US',
  billing_address: { name: 'a', line_1: 'b', city: 'c', country: 'US' },
  is_default: true,
  invalid: false,
  flags: 0,
  deleted_at: null,
};

const sourceStore = {
  customerOf: async () => 'cus_1',
  get: async (userId: string, id: string) => (userId === 'u1' && id === '77' ? SOURCE : undefined),
} as unknown as PaymentSourceStore;

/** Purchases and subscriptions in memory, with the claim rules of the real store. */
class FakeStore implements Partial<SubscriptionStore> {
  purchases = new Map<string, { hash: string; state: string; paymentId: string; outcome?: PurchaseOutcome; leased: boolean }>();
  subscriptions = new Map<string, Subscription>();
  async purchaseContext(userId: string, sourceId: string | undefined) {
    const source = userId === 'u1' && sourceId === SOURCE.id ? SOURCE : undefined;
    return { credits: [], source, customerId: 'cus_1', livePremium: false };
  }
  async get(_userId: string, id: string) {
    return this.subscriptions.get(id);
  }
  async latestInvoice() {
    return undefined;
  }
  async saveChargeRequest() {}
  async claim(userId: string, loadId: string, hash: string, paymentId: string): Promise<Claim> {
    const key = `${userId}/${loadId}`;
    const p = this.purchases.get(key);
    if (!p) {
      this.purchases.set(key, { hash, state: 'pending', paymentId, leased: true });
      return { kind: 'claimed', paymentId };
    }
    if (p.hash !== hash) return { kind: 'mismatch' };
    if (p.state !== 'pending') return { kind: 'done', outcome: p.outcome! };
    if (p.leased) return { kind: 'busy' };
    p.leased = true;
    return { kind: 'claimed', paymentId: p.paymentId };
  }
  async release(userId: string, loadId: string) {
    this.purchases.get(`${userId}/${loadId}`)!.leased = false;
  }
  async completePurchase(userId: string, loadId: string, created: NewSubscription, outcome: PurchaseOutcome): Promise<Subscription> {
    const p = this.purchases.get(`${userId}/${loadId}`)!;
    Object.assign(p, { state: 'done', outcome });
    const s = { ...created.subscription, created_at: new Date(), failed_renewals: 0 } as Subscription;
    this.subscriptions.set(s.id, s);
    return s;
  }
  async failPurchase(userId: string, loadId: string, _payment: Payment, outcome: PurchaseOutcome) {
    Object.assign(this.purchases.get(`${userId}/${loadId}`)!, { state: 'failed', outcome });
  }
}

function setup() {
  let n = 1000;
  const ids = { next: () => String(n++) };
  const gateway = new FakeGateway();
  const store = new FakeStore();
  const catalogue = {
    plans: async (list: string[]) => new Map(list.filter((i) => i === PLAN.id).map((i) => [i, PLAN])),
  } as unknown as CatalogueStore;
  const sources = new PaymentSourcesService(sourceStore, gateway, ids);
  const service = new PurchaseService(
    catalogue,
    store as unknown as SubscriptionStore,
    sources,
    gateway,
    ids,
    { now: () => new Date() },
    {
      leaseMs: 1000,
      waitMs: 2000,
      pollMs: 5,
    },
  );
  return { service, gateway, store };
}

const body = (extra: Partial<CreateSubscription> = {}): CreateSubscription => ({
  items: [{ plan_id: PLAN.id, quantity: 1 }],
  payment_source_id: '77',
  purchase_token: 't',
  load_id: 'L1',
  ...extra,
});

describe('PurchaseService', () => {
  it('when many copies of one purchase arrive at once, then the gateway is asked once and all get the same subscription', async () => {
    const { service, gateway } = setup();
    const results = await Promise.all(Array.from({ length: 50 }, () => service.create('u1', body())));
    expect(new Set(results.map((r) => r.subscription.id)).size).toBe(1);
    expect(gateway.charges).toHaveLength(1);
    const later = await service.create('u1', body());
    expect(later.subscription.id).toBe(results[0]!.subscription.id);
    expect(gateway.charges).toHaveLength(1);
  });

  it('when the same load_id comes with another body, then it is refused, at once or later', async () => {
    const { service, gateway } = setup();
    const first = service.create('u1', body());
    await expect(service.create('u1', body({ items: [{ plan_id: PLAN.id, quantity: 2 }] }))).rejects.toMatchObject({
      body: { code: 50035 },
    });
    await first;
    await expect(service.create('u1', body({ return_url: 'https://x' }))).rejects.toMatchObject({ body: { code: 50035 } });
    expect(gateway.charges).toHaveLength(1);
  });

  it('when the expected price is not the catalogue’s, then nothing is charged', async () => {
    const { service, gateway, store } = setup();
    await expect(service.create('u1', body({ expected_invoice_price: { currency: 'usd', amount: 1 } }))).rejects.toMatchObject({
      body: { code: 100008 },
    });
    expect(gateway.charges).toHaveLength(0);
    expect(store.purchases.size).toBe(0);
  });

  it('when the gateway cannot be reached, then the claim is let go and the retry asks again under the same idempotency key', async () => {
    const { service, gateway } = setup();
    gateway.failNext = 1;
    await expect(service.create('u1', body())).rejects.toMatchObject({ status: 502 });
    const done = await service.create('u1', body());
    expect(done.subscription.status).toBe(1);
    expect(gateway.charges.map((c) => c.idempotencyKey)).toEqual([gateway.charges[0]!.idempotencyKey, gateway.charges[0]!.idempotencyKey]);
    expect(gateway.keysCharged.size).toBe(1);
  });

  it('when bodies differ only in key order or undefined fields, then they hash alike', () => {
    expect(requestHash({ purchase_token: 't', items: [{ plan_id: '1', quantity: 1 }] })).toBe(
      requestHash({ items: [{ quantity: 1, plan_id: '1' }], purchase_token: 't', code: undefined }),
    );
    expect(requestHash(body())).not.toBe(requestHash(body({ payment_source_id: '78' })));
  });
});
