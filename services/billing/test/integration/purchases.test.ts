import { randomUUID } from 'node:crypto';
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
} from './harness.js';

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stopBillingStack(stack));

const charges = async (userId: string): Promise<number> => {
  const res = await fetch(`${stack.stripeUrl}/__kith/charges?user_id=${userId}`);
  return ((await res.json()) as { count: number }).count;
};

describe('the catalogue', () => {
  it('when the premium SKU’s plans are asked, then the platform’s real plan ids come back with prices per country', async () => {
    const res = await api(stack, null, 'GET', `/store/published-listings/skus/${SKUS.nitro}/subscription-plans`);
    expect(res.status).toBe(200);
    const plans = res.body as Body[];
    expect(plans.map((p) => p.id).sort()).toEqual([PLANS.nitroMonthly, PLANS.nitroYearly].sort());
    const monthly = plans.find((p) => p.id === PLANS.nitroMonthly);
    expect(monthly).toMatchObject({ sku_id: SKUS.nitro, interval: 1, interval_count: 1, currency: 'usd', price: 999 });
    const eu = await api(stack, null, 'GET', `/store/published-listings/skus/${SKUS.nitro}/subscription-plans?country_code=DE`);
    expect((eu.body as Body[]).find((p) => p.id === PLANS.nitroMonthly).prices['0'].country_prices).toMatchObject({ country_code: 'DE' });
    expect((eu.body as Body[]).find((p) => p.id === PLANS.nitroMonthly).currency).toBe('eur');
  });

  it('when the boost SKU, its listing or an unknown SKU is asked, then the listing answers and the unknown one is 10027', async () => {
    const listing = await api(stack, null, 'GET', `/store/published-listings/skus/${SKUS.boost}`);
    expect(listing.status).toBe(200);
    expect(listing.body.sku).toMatchObject({ id: SKUS.boost, name: 'Server Boost' });
    const bulk = await api(
      stack,
      null,
      'GET',
      `/store/published-listings/skus/subscription-plans?sku_ids=${SKUS.boost}&sku_ids=${SKUS.basic}`,
    );
    expect((bulk.body as Body[]).map((p) => p.id)).toContain(PLANS.boostYearly);
    expect((bulk.body as Body[]).map((p) => p.id)).toContain(PLANS.basicMonthly);
    expect((await api(stack, null, 'GET', '/store/published-listings/skus/1/subscription-plans')).body.code).toBe(10027);
    expect((await api(stack, null, 'GET', '/store/published-listings/skus/nope')).status).toBe(404);
    expect((await api(stack, null, 'GET', '/store/published-listings/skus/subscription-plans')).body.code).toBe(50035);
  });
});

describe('payment sources', () => {
  it('when a test card is added, then it is listed with the address cut to name and country, and can be read, changed and removed', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user, 'tok_visa');
    expect(card).toMatchObject({ type: 1, brand: 'visa', last_4: '4242', payment_gateway: 1, default: true, invalid: false });
    expect(card.payment_gateway_source_id).toMatch(/^pm_/);
    const second = await addCard(stack, user, 'pm_card_mastercard');
    expect(second.default).toBe(false);
    const list = await api(stack, user, 'GET', '/users/@me/billing/payment-sources');
    expect((list.body as Body[]).map((s) => s.id)).toEqual([card.id, second.id]);
    expect((list.body as Body[])[0].billing_address).toEqual({ name: 'Ana Test', country: 'US' });
    const changed = await api(stack, user, 'PATCH', `/users/@me/billing/payment-sources/${second.id}`, { default: true });
    expect(changed.body.default).toBe(true);
    expect((await api(stack, user, 'GET', `/users/@me/billing/payment-sources/${card.id}`)).body.default).toBe(false);
    expect((await api(stack, user, 'DELETE', `/users/@me/billing/payment-sources/${card.id}`)).status).toBe(204);
    expect((await api(stack, user, 'GET', `/users/@me/billing/payment-sources/${card.id}`)).status).toBe(404);
  });

  it('when a declining card, an unknown token, another gateway or no address is given, then nothing is added', async () => {
    const user = await newUser(stack);
    const add = (body: unknown) => api(stack, user, 'POST', '/users/@me/billing/payment-sources', body);
    const declined = await add({
      token: 'pm_card_chargeDeclined',
      payment_gateway: 1,
      billing_address: { name: 'A', line_1: 'x', city: 'y', country: 'US' },
    });
    expect(declined.status).toBe(400);
    expect(declined.body).toMatchObject({ code: 100054, decline_code: 'generic_decline' });
    const unknown = await add({
      token: 'pm_nope',
      payment_gateway: 1,
      billing_address: { name: 'A', line_1: 'x', city: 'y', country: 'US' },
    });
    expect(unknown.body.code).toBe(100002);
    const gateway = await add({
      token: 'tok_visa',
      payment_gateway: 2,
      billing_address: { name: 'A', line_1: 'x', city: 'y', country: 'US' },
    });
    expect(gateway.body.errors.payment_gateway._errors[0].code).toBeDefined();
    expect((await add({ token: 'tok_visa', payment_gateway: 1 })).body.errors.billing_address._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    expect((await api(stack, user, 'GET', '/users/@me/billing/payment-sources')).body).toEqual([]);
    expect((await api(stack, null, 'GET', '/users/@me/billing/payment-sources')).status).toBe(401);
  });

  it('when another user’s source is read, changed or removed, then it is unknown to them', async () => {
    const [owner, other] = [await newUser(stack), await newUser(stack)];
    const card = await addCard(stack, owner);
    expect((await api(stack, other, 'GET', `/users/@me/billing/payment-sources/${card.id}`)).body.code).toBe(50048);
    expect((await api(stack, other, 'PATCH', `/users/@me/billing/payment-sources/${card.id}`, { default: true })).status).toBe(404);
    expect((await api(stack, other, 'DELETE', `/users/@me/billing/payment-sources/${card.id}`)).status).toBe(404);
    expect((await api(stack, owner, 'GET', `/users/@me/billing/payment-sources/${card.id}`)).status).toBe(200);
  });
});

describe('Create Subscription', () => {
  it('when a visa buys Nitro monthly, then the subscription is active, charged once at catalogue price, with its invoice and two boost slots', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const res = await api(
      stack,
      user,
      'POST',
      '/users/@me/billing/subscriptions',
      purchase(PLANS.nitroMonthly, card.id, { expected_invoice_price: { currency: 'usd', amount: 999 } }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 1, status: 1, currency: 'usd', payment_gateway: 1, payment_source_id: card.id });
    expect(res.body.items).toEqual([{ id: expect.any(String), plan_id: PLANS.nitroMonthly, quantity: 1 }]);
    expect(res.body.latest_invoice).toMatchObject({ status: 2, total: 999, subtotal: 999, tax: 0, currency: 'usd' });
    expect(await charges(user.userId)).toBe(1);
    const one = await api(stack, user, 'GET', `/users/@me/billing/subscriptions/${res.body.id}`);
    expect(one.body.id).toBe(res.body.id);
    const list = await api(stack, user, 'GET', '/users/@me/billing/subscriptions');
    expect((list.body as Body[]).map((s) => s.id)).toEqual([res.body.id]);
    const slots = await stack.db.selectFrom('premium_guild_slots').selectAll().where('subscription_id', '=', res.body.id).execute();
    expect(slots).toHaveLength(2);
  });

  it('when 200 creates with one load_id race, then one subscription and one charge exist and every answer names it', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const body = purchase(PLANS.boostMonthly, card.id, { load_id: randomUUID() });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => api(stack, user, 'POST', '/users/@me/billing/subscriptions', body)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await charges(user.userId)).toBe(1);
    const list = await api(stack, user, 'GET', '/users/@me/billing/subscriptions');
    expect(list.body).toHaveLength(1);
    const again = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', body);
    expect(again.body.id).toBe(answers[0]!.body.id);
    const other = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', {
      ...body,
      items: [{ plan_id: PLANS.boostMonthly, quantity: 2 }],
    });
    expect(other.status).toBe(400);
    expect(other.body.errors.load_id._errors[0].code).toBe('LOAD_ID_REUSED');
    expect(await charges(user.userId)).toBe(1);
  });

  it('when the expected price differs from the charge, then the purchase fails with nothing charged or written', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const wrongAmount = await api(
      stack,
      user,
      'POST',
      '/users/@me/billing/subscriptions',
      purchase(PLANS.nitroMonthly, card.id, { expected_invoice_price: { currency: 'usd', amount: 499 } }),
    );
    expect(wrongAmount.status).toBe(400);
    expect(wrongAmount.body.code).toBe(100008);
    const wrongCurrency = await api(
      stack,
      user,
      'POST',
      '/users/@me/billing/subscriptions',
      purchase(PLANS.nitroMonthly, card.id, { expected_renewal_price: { currency: 'eur', amount: 999 } }),
    );
    expect(wrongCurrency.body.code).toBe(100008);
    expect(await charges(user.userId)).toBe(0);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?include_inactive=true')).body).toEqual([]);
  });

  it('when the plan is unknown, items are empty, the source is missing or another user’s, then the platform’s codes answer', async () => {
    const [user, other] = [await newUser(stack), await newUser(stack)];
    const card = await addCard(stack, user);
    const othersCard = await addCard(stack, other);
    const create = (body: unknown) => api(stack, user, 'POST', '/users/@me/billing/subscriptions', body);
    expect((await create(purchase('123', card.id))).body.code).toBe(100005);
    expect((await create({ ...purchase(PLANS.nitroMonthly, card.id), items: [] })).body.code).toBe(100037);
    expect((await create(purchase(PLANS.nitroMonthly, undefined))).body.code).toBe(100006);
    expect((await create(purchase(PLANS.nitroMonthly, othersCard.id))).body.code).toBe(100002);
    expect(
      (
        await create({
          ...purchase(PLANS.nitroMonthly, card.id),
          items: [{ plan_id: PLANS.nitroMonthly }, { plan_id: PLANS.nitroMonthly }],
        })
      ).body.code,
    ).toBe(100034);
    expect(
      (await create({ ...purchase(PLANS.nitroMonthly, card.id), items: [{ plan_id: PLANS.nitroMonthly }, { plan_id: PLANS.boostYearly }] }))
        .body.code,
    ).toBe(100034);
    const noToken = await create({ items: [{ plan_id: PLANS.nitroMonthly }], payment_source_id: card.id });
    expect(noToken.body.errors.purchase_token._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const longUrl = await create(purchase(PLANS.nitroMonthly, card.id, { return_url: `https://x/${'a'.repeat(2048)}` }));
    expect(longUrl.body.errors.return_url._errors[0].code).toBe('BASE_TYPE_MAX_LENGTH');
    const longToken = await create({ ...purchase(PLANS.nitroMonthly, card.id), purchase_token: 'a'.repeat(1025) });
    expect(longToken.body.errors.purchase_token._errors[0].code).toBe('BASE_TYPE_MAX_LENGTH');
    expect((await create(purchase(PLANS.nitroMonthly, card.id, { currency: 'jpy' }))).body.code).toBe(100005);
    expect((await api(stack, null, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.nitroMonthly, card.id))).status).toBe(401);
    expect(await charges(user.userId)).toBe(0);
  });

  it('when the user already has Nitro, then buying a premium tier again is 100004 and a boost add-on is not', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    expect((await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.nitroMonthly, card.id))).status).toBe(200);
    expect((await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.basicMonthly, card.id))).body.code).toBe(
      100004,
    );
    expect((await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.boostMonthly, card.id))).status).toBe(200);
    expect(await charges(user.userId)).toBe(2);
  });

  it('when the card declines at the charge, then 100054 answers, no subscription exists, and the failed payment is recorded', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user, 'pm_card_chargeCustomerFail');
    const res = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.nitroMonthly, card.id));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 100054, payment_id: expect.any(String) });
    const payment = await stack.db.selectFrom('payments').selectAll().where('id', '=', res.body.payment_id).executeTakeFirstOrThrow();
    expect(payment.status).toBe(2);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?include_inactive=true')).body).toEqual([]);
    expect(await charges(user.userId)).toBe(0);
  });

  it('when the card needs authentication, then 100047 answers with the payment and an unpaid subscription waits for it', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user, 'pm_card_authenticationRequired');
    const res = await api(
      stack,
      user,
      'POST',
      '/users/@me/billing/subscriptions',
      purchase(PLANS.nitroMonthly, card.id, { return_url: 'https://example.com/done' }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 100047, payment_id: expect.any(String) });
    const list = await api(stack, user, 'GET', '/users/@me/billing/subscriptions');
    expect((list.body as Body[]).map((s) => s.status)).toEqual([0]);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?exclude_unpaid_statuses=true')).body).toEqual([]);
    expect(await charges(user.userId)).toBe(0);
  });

  it('when the gateway is down, then 502 answers with nothing charged, and the retry with the same load_id charges once', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const body = purchase(PLANS.boostMonthly, card.id, { load_id: randomUUID() });
    stack.stripe.injectFault('down', 2, user.userId);
    const down = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', body);
    expect(down.status).toBe(502);
    expect(await charges(user.userId)).toBe(0);
    const retried = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', body);
    expect(retried.status).toBe(200);
    expect(await charges(user.userId)).toBe(1);
  });

  it('when the gateway charges but the answer is lost, then the client’s retry under the same key is answered and charged once', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    stack.stripe.injectFault('drop_after_charge', 1, user.userId);
    const res = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.boostMonthly, card.id));
    expect(res.status).toBe(200);
    expect(await charges(user.userId)).toBe(1);
  });

  it('when the gateway times out on every attempt, then 504 answers and a later retry charges once', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const body = purchase(PLANS.boostMonthly, card.id, { load_id: randomUUID() });
    stack.stripe.injectFault('timeout', 2, user.userId);
    const late = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', body);
    expect(late.status).toBe(504);
    const retried = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', body);
    expect(retried.status).toBe(200);
    expect(await charges(user.userId)).toBe(1);
  });
});

describe('Get Subscriptions', () => {
  it('when another user asks for a subscription, then it is unknown (100003, 404); bad ids and limits are refused', async () => {
    const [user, other] = [await newUser(stack), await newUser(stack)];
    const card = await addCard(stack, user);
    const created = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.boostMonthly, card.id));
    const res = await api(stack, other, 'GET', `/users/@me/billing/subscriptions/${created.body.id}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(100003);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions/abc')).body.code).toBe(100003);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?limit=0')).body.errors.limit._errors[0].code).toBe(
      'NUMBER_TYPE_MIN',
    );
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?limit=21')).body.errors.limit._errors[0].code).toBe(
      'NUMBER_TYPE_MAX',
    );
    expect((await api(stack, other, 'GET', '/users/@me/billing/subscriptions')).body).toEqual([]);
  });

  it('when limit and type are given, then the list is cut and filtered', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    for (let i = 0; i < 3; i++) await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.boostMonthly, card.id));
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?limit=2')).body).toHaveLength(2);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?subscription_type=1')).body).toHaveLength(3);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?subscription_type=2')).body).toHaveLength(0);
  });
});
