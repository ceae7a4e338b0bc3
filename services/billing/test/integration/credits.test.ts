import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCard,
  api,
  newUser,
  PLANS,
  purchase,
  SKUS,
  startBillingStack,
  stopBillingStack,
  type BillingStack,
  type Body,
  type StackUser,
} from './harness.js';

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stopBillingStack(stack));

const PREMIUM_APPLICATION = '521842831262875670';
const DAY = 86_400_000;
const preview = '/users/@me/billing/subscriptions/preview';
const sub = (id: string) => `/users/@me/billing/subscriptions/${id}`;
const charges = async (userId: string): Promise<number> =>
  ((await (await fetch(`${stack.stripeUrl}/__kith/charges?user_id=${userId}`)).json()) as { count: number }).count;

let nextId = BigInt(Date.now()) << 22n;
const newId = () => String((nextId += 1n));

/** A credit of the user's: an entitlement (a gift, type USER_GIFT) to one period of `plan`. */
async function credit(user: StackUser, plan: string, sku: string, extra: { ends_at?: Date } = {}): Promise<string> {
  const id = newId();
  await stack.db
    .insertInto('entitlements')
    .values({
      id,
      user_id: user.userId,
      sku_id: sku,
      application_id: PREMIUM_APPLICATION,
      subscription_id: null,
      type: 6,
      starts_at: new Date(Date.now() - DAY),
      ends_at: extra.ends_at ?? null,
      plan_id: plan,
    } as never)
    .execute();
  return id;
}

/** A discount offer made to the user: `amount` (smallest currency unit) off the plans named. */
async function offer(user: StackUser, amount: number, plans: string[], extra: { expires_at?: Date } = {}) {
  const row = { id: newId(), discount_id: newId() };
  await stack.db
    .insertInto('user_discount_offers')
    .values({ ...row, user_id: user.userId, amount, plan_ids: plans, expires_at: extra.expires_at ?? new Date(Date.now() + 7 * DAY) })
    .execute();
  return row;
}

describe('entitlement credits (apply_entitlements)', () => {
  it('when the user holds a credit for a plan, then a preview that applies it shows that period paid by an ENTITLEMENT discount, with the tax computed again', async () => {
    const user = await newUser(stack);
    await credit(user, PLANS.nitroMonthly, SKUS.nitro);
    await credit(user, PLANS.boostMonthly, SKUS.boost);
    const full = await api(stack, user, 'POST', preview, { items: [{ plan_id: PLANS.nitroMonthly }] });
    expect(full.body).toMatchObject({ subtotal: 999, total: 999 });
    const credited = await api(stack, user, 'POST', preview, { items: [{ plan_id: PLANS.nitroMonthly }], apply_entitlements: true });
    expect(credited.body).toMatchObject({ subtotal: 0, tax: 0, total: 0 });
    expect(credited.body.items[0]).toMatchObject({ amount: 0, subscription_plan_price: 999, discounts: [{ type: 2, amount: 999 }] });
    // One credit pays one boost of three; tax-exclusive CAD adds 13% on what is left.
    const boosts = await api(stack, user, 'POST', preview, {
      items: [{ plan_id: PLANS.boostMonthly, quantity: 3 }],
      currency: 'cad',
      apply_entitlements: true,
    });
    expect(boosts.body).toMatchObject({ subtotal: 1298, tax: 169, total: 1467, tax_inclusive: false });
    expect(boosts.body.items[0]).toMatchObject({ quantity: 3, amount: 1298, discounts: [{ type: 2, amount: 649 }] });
    // Another user's credits are not this user's.
    const other = await newUser(stack);
    expect(
      (await api(stack, other, 'POST', preview, { items: [{ plan_id: PLANS.nitroMonthly }], apply_entitlements: true })).body.total,
    ).toBe(999);
    expect(
      (await api(stack, user, 'POST', preview, { items: [{ plan_id: PLANS.nitroMonthly }], apply_entitlements: 'yes' })).body.errors
        .apply_entitlements._errors[0].code,
    ).toEqual(expect.any(String));
  });

  it('when a user with a credit buys its plan, then the first period is paid by the credit (nothing charged), the renewal is full price, and the credit is consumed', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const creditId = await credit(user, PLANS.nitroMonthly, SKUS.nitro);
    await credit(user, PLANS.nitroMonthly, SKUS.nitro, { ends_at: new Date(Date.now() - 1000) });
    const bought = await api(
      stack,
      user,
      'POST',
      '/users/@me/billing/subscriptions',
      purchase(PLANS.nitroMonthly, card.id, {
        expected_invoice_price: { currency: 'usd', amount: 0 },
        expected_renewal_price: { currency: 'usd', amount: 999 },
      }),
    );
    expect(bought.status).toBe(200);
    expect(bought.body).toMatchObject({ status: 1, latest_invoice: { total: 0, items: [{ discounts: [{ type: 2, amount: 999 }] }] } });
    expect(await charges(user.userId)).toBe(0);
    const row = await stack.db.selectFrom('entitlements').selectAll().where('id', '=', creditId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ consumed: true, consumed_invoice_id: bought.body.latest_invoice.id });
    // The expired credit never applied; the consumed one no longer does; the renewal costs the full price.
    expect(
      (await api(stack, user, 'POST', preview, { items: [{ plan_id: PLANS.nitroMonthly }], apply_entitlements: true })).body.total,
    ).toBe(999);
    expect((await api(stack, user, 'GET', `${sub(bought.body.id)}/preview`)).body.total).toBe(999);
  });
});

describe('user discount offers (user_discount_offer_id)', () => {
  async function subscribed(): Promise<{ user: StackUser; s: Body }> {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const res = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.nitroMonthly, card.id));
    expect(res.status).toBe(200);
    return { user, s: res.body };
  }

  it('when a renewal is previewed with an offer of 250 on its plan, then 250 (cents, not percent) comes off that line and the invoice names the offer', async () => {
    const { user, s } = await subscribed();
    const made = await offer(user, 250, [PLANS.nitroMonthly]);
    const res = await api(stack, user, 'PATCH', `${sub(s.id)}/preview`, { renewal: true, user_discount_offer_id: made.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subtotal: 749, total: 749, applied_discount_ids: [made.discount_id] });
    expect(Object.keys(res.body.applied_user_discounts)).toEqual([made.id]);
    expect(res.body.items[0]).toMatchObject({ amount: 749, subscription_plan_price: 999, discounts: [{ type: 5, amount: 250 }] });
    // In EUR, VAT is the part of the discounted price it always is.
    const purchasePreview = await api(stack, user, 'POST', preview, {
      items: [{ plan_id: PLANS.nitroMonthly }],
      currency: 'eur',
      user_discount_offer_id: made.id,
    });
    expect(purchasePreview.body).toMatchObject({ subtotal: 749, tax: 125, total: 749 });
  });

  it('when an offer is unknown, another user’s, expired, used or for other plans, then 10100 or 100086 answers', async () => {
    const { user, s } = await subscribed();
    const other = await newUser(stack);
    const theirs = await offer(other, 30, [PLANS.nitroMonthly]);
    const expired = await offer(user, 30, [PLANS.nitroMonthly], { expires_at: new Date(Date.now() - 1000) });
    const boostsOnly = await offer(user, 50, [PLANS.boostMonthly]);
    const used = await offer(user, 30, [PLANS.nitroMonthly]);
    await stack.db.updateTable('user_discount_offers').set({ applied_at: new Date() }).where('id', '=', used.id).execute();
    const ask = (id: string) => api(stack, user, 'PATCH', `${sub(s.id)}/preview`, { renewal: true, user_discount_offer_id: id });
    expect((await ask(theirs.id)).body.code).toBe(10100);
    expect((await ask('123')).body.code).toBe(10100);
    expect((await ask(expired.id)).body.code).toBe(100086);
    expect((await ask(boostsOnly.id)).body.code).toBe(100086);
    expect((await ask(used.id)).body.code).toBe(100086);
    expect((await ask('not-an-id')).body.errors.user_discount_offer_id._errors[0].code).toEqual(expect.any(String));
  });
});
