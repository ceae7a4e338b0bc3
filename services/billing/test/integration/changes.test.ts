import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCard,
  api,
  newUser,
  PLANS,
  purchase,
  startBillingStack,
  stopBillingStack,
  type BillingStack,
  type Body,
  type StackUser,
} from './harness.js';

/** A subscription the user does not hold: the platform's 100003, answered 404 (not the 400 of an illegal move). */
const UNKNOWN_SUBSCRIPTION = { status: 404, code: 100003 };
const ILLEGAL_MOVE = { status: 400, code: 100003 };
const answer = (res: { status: number; body: { code?: number } }) => ({ status: res.status, code: res.body.code });

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stopBillingStack(stack));

const sub = (id: string) => `/users/@me/billing/subscriptions/${id}`;
const charges = async (userId: string): Promise<number> =>
  ((await (await fetch(`${stack.stripeUrl}/__kith/charges?user_id=${userId}`)).json()) as { count: number }).count;

async function subscribed(plan = PLANS.nitroMonthly, token = 'pm_card_visa'): Promise<{ user: StackUser; card: Body; s: Body }> {
  const user = await newUser(stack);
  const card = await addCard(stack, user, token);
  const res = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(plan, card.id));
  expect(res.status).toBe(200);
  return { user, card, s: res.body };
}

describe('Modify and Delete Subscription', () => {
  it('when a subscription is deleted, then it is canceled at period end, shows canceled_at, and a second delete is 100007', async () => {
    const { user, s } = await subscribed();
    expect((await api(stack, user, 'DELETE', sub(s.id))).status).toBe(204);
    const after = await api(stack, user, 'GET', sub(s.id));
    expect(after.body).toMatchObject({ status: 3, current_period_end: s.current_period_end });
    expect(after.body.canceled_at).toEqual(expect.any(String));
    expect((await api(stack, user, 'DELETE', sub(s.id))).body.code).toBe(100007);
    const resumed = await api(stack, user, 'PATCH', sub(s.id), { status: 1 });
    expect(resumed.body.status).toBe(1);
    expect(resumed.body.canceled_at).toBeUndefined();
  });

  it('when a pause is asked, then it is pending with its duration; illegal statuses and moves are refused with 100003', async () => {
    const { user, s } = await subscribed();
    expect(answer(await api(stack, user, 'PATCH', sub(s.id), { status: 8 }))).toEqual(ILLEGAL_MOVE);
    const paused = await api(stack, user, 'PATCH', sub(s.id), { status: 8, pause_duration: 30 });
    expect(paused.body.status).toBe(9);
    expect(answer(await api(stack, user, 'PATCH', sub(s.id), { status: 4 }))).toEqual(ILLEGAL_MOVE);
    expect(answer(await api(stack, user, 'PATCH', sub(s.id), { status: 2 }))).toEqual(ILLEGAL_MOVE);
    expect(answer(await api(stack, user, 'PATCH', sub(s.id), { status: 8, pause_duration: 30 }))).toEqual(ILLEGAL_MOVE);
    expect((await api(stack, user, 'PATCH', sub(s.id), { status: 1 })).body.status).toBe(1);
    expect((await api(stack, user, 'PATCH', sub(s.id), { pause_duration: 91, status: 8 })).body.errors.pause_duration._errors[0].code).toBe(
      'NUMBER_TYPE_MAX',
    );
  });

  it('when an add-on goes from one boost to three mid-period, then the prorated difference is charged now and two slots are added', async () => {
    const { user, s } = await subscribed(PLANS.boostMonthly);
    const preview = await api(stack, user, 'PATCH', `${sub(s.id)}/preview`, { items: [{ plan_id: PLANS.boostMonthly, quantity: 3 }] });
    expect(preview.status).toBe(200);
    const total = preview.body.total as number;
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(998);
    expect(preview.body.items.some((i: Body) => i.amount < 0 && i.proration && i.discounts[0].type === 1)).toBe(true);
    const mismatch = await api(stack, user, 'PATCH', sub(s.id), {
      items: [{ plan_id: PLANS.boostMonthly, quantity: 3 }],
      expected_invoice_price: { currency: 'usd', amount: total + 1 },
    });
    expect(mismatch.body.code).toBe(100008);
    expect(await charges(user.userId)).toBe(1);
    const changed = await api(stack, user, 'PATCH', sub(s.id), {
      items: [{ plan_id: PLANS.boostMonthly, quantity: 3 }],
      expected_invoice_price: { currency: 'usd', amount: total },
      expected_renewal_price: { currency: 'usd', amount: 1497 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.items[0].quantity).toBe(3);
    expect(await charges(user.userId)).toBe(2);
    const slots = await api(stack, user, 'GET', '/users/@me/guilds/premium/subscription-slots');
    expect(slots.body).toHaveLength(3);
    const invoices = await api(stack, user, 'GET', `${sub(s.id)}/invoices`);
    expect((invoices.body as Body[]).map((i) => i.status)).toEqual([2, 2]);
  });

  it('when Nitro goes down to Basic, then nothing is charged now and the change waits for renewal in renewal_mutations', async () => {
    const { user, s } = await subscribed();
    const res = await api(stack, user, 'PATCH', sub(s.id), {
      items: [{ plan_id: PLANS.basicMonthly }],
      expected_renewal_price: { currency: 'usd', amount: 299 },
    });
    expect(res.status).toBe(200);
    expect(res.body.items[0].plan_id).toBe(PLANS.nitroMonthly);
    expect(res.body.renewal_mutations.items).toEqual([{ plan_id: PLANS.basicMonthly, quantity: 1 }]);
    const upcoming = await api(stack, user, 'GET', `${sub(s.id)}/preview`);
    expect(upcoming.body).toMatchObject({ total: 299, subscription_period_start: s.current_period_end });
    expect(await charges(user.userId)).toBe(1);
  });

  it('when another user’s subscription is changed, deleted, previewed or paid, then it is unknown; unknown plans are 100005', async () => {
    const { user, s } = await subscribed(PLANS.boostMonthly);
    const other = await newUser(stack);
    expect(answer(await api(stack, other, 'PATCH', sub(s.id), { status: 3 }))).toEqual(UNKNOWN_SUBSCRIPTION);
    expect(answer(await api(stack, other, 'DELETE', sub(s.id)))).toEqual(UNKNOWN_SUBSCRIPTION);
    expect(answer(await api(stack, other, 'GET', `${sub(s.id)}/preview`))).toEqual(UNKNOWN_SUBSCRIPTION);
    expect(answer(await api(stack, other, 'GET', `${sub(s.id)}/invoices`))).toEqual(UNKNOWN_SUBSCRIPTION);
    expect(answer(await api(stack, other, 'POST', `${sub(s.id)}/invoices/1/pay`, { payment_source_id: null }))).toEqual(
      UNKNOWN_SUBSCRIPTION,
    );
    expect((await api(stack, user, 'PATCH', sub(s.id), { items: [{ plan_id: '42' }] })).body.code).toBe(100005);
    expect((await api(stack, user, 'GET', sub(s.id))).body.status).toBe(1);
  });
});

describe('previews and invoices', () => {
  it('when a purchase is previewed, then the invoice is priced in the asked currency with its tax line, and nothing is written', async () => {
    const user = await newUser(stack);
    const eur = await api(stack, user, 'POST', '/users/@me/billing/subscriptions/preview', {
      items: [{ plan_id: PLANS.nitroMonthly }],
      currency: 'eur',
    });
    expect(eur.body).toMatchObject({ currency: 'eur', subtotal: 999, tax: 167, total: 999, tax_inclusive: true });
    const cad = await api(stack, user, 'POST', '/users/@me/billing/subscriptions/preview', {
      items: [{ plan_id: PLANS.boostMonthly, quantity: 2 }],
      currency: 'cad',
      renewal: true,
    });
    expect(cad.body).toMatchObject({ subtotal: 1298, tax: 169, total: 1467, tax_inclusive: false });
    expect(cad.body.items[0]).toMatchObject({
      quantity: 2,
      subscription_plan_id: PLANS.boostMonthly,
      unit_price: { currency: 'cad', amount: 649, exponent: 2 },
    });
    expect((await api(stack, user, 'POST', '/users/@me/billing/subscriptions/preview', { items: [] })).body.code).toBe(100037);
    expect((await api(stack, user, 'POST', '/users/@me/billing/subscriptions/preview', { items: [{ plan_id: '5' }] })).body.code).toBe(
      100005,
    );
    expect((await api(stack, user, 'POST', '/users/@me/billing/subscriptions/preview', {})).body.errors.items._errors[0].code).toBe(
      'BASE_TYPE_REQUIRED',
    );
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?include_inactive=true')).body).toEqual([]);
  });

  it('when a canceled subscription is previewed, then there is no upcoming invoice (100038)', async () => {
    const { user, s } = await subscribed(PLANS.boostMonthly);
    await api(stack, user, 'DELETE', sub(s.id));
    expect((await api(stack, user, 'GET', `${sub(s.id)}/preview`)).body.code).toBe(100038);
  });

  it('when an unpaid subscription’s invoice is paid after the customer authenticated, then it is active and was charged once', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user, 'pm_card_authenticationRequired');
    const res = await api(
      stack,
      user,
      'POST',
      '/users/@me/billing/subscriptions',
      purchase(PLANS.nitroMonthly, card.id, { return_url: 'https://example.com/x' }),
    );
    expect(res.body.code).toBe(100047);
    const [s] = (await api(stack, user, 'GET', '/users/@me/billing/subscriptions')).body as Body[];
    const [invoice] = (await api(stack, user, 'GET', `${sub(s.id)}/invoices`)).body as Body[];
    expect(invoice.status).toBe(1);
    const payment = await stack.db.selectFrom('payments').selectAll().where('id', '=', res.body.payment_id).executeTakeFirstOrThrow();
    // The customer completes the card's authentication at the gateway.
    expect((await fetch(`${stack.stripeUrl}/__kith/3ds/${payment.gateway_payment_id}`)).status).toBe(200);
    const paid = await api(stack, user, 'POST', `${sub(s.id)}/invoices/${invoice.id}/pay`, { payment_source_id: card.id });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe(1);
    expect(await charges(user.userId)).toBe(1);
    const again = await api(stack, user, 'POST', `${sub(s.id)}/invoices/${invoice.id}/pay`, { payment_source_id: card.id });
    expect(again.body.code).toBe(100008);
    expect(
      (await api(stack, user, 'POST', `${sub(s.id)}/invoices/${invoice.id}/pay`, {})).body.errors.payment_source_id._errors[0].code,
    ).toBe('BASE_TYPE_REQUIRED');
  });

  it('when an invoice of an active subscription is paid, then it is refused; an unknown invoice is 100059', async () => {
    const { user, s, card } = await subscribed(PLANS.boostMonthly);
    const [invoice] = (await api(stack, user, 'GET', `${sub(s.id)}/invoices`)).body as Body[];
    expect((await api(stack, user, 'POST', `${sub(s.id)}/invoices/${invoice.id}/pay`, { payment_source_id: card.id })).body.code).toBe(
      100008,
    );
    expect((await api(stack, user, 'POST', `${sub(s.id)}/invoices/123/pay`, { payment_source_id: card.id })).body.code).toBe(100059);
  });
});

describe('Claim Subscription Promotion Reward', () => {
  it('when an active premium subscription claims, then it gets its entitlement once; an add-on is not eligible', async () => {
    const { user, s } = await subscribed();
    const first = await api(stack, user, 'POST', `${sub(s.id)}/promotion-reward`);
    expect(first.body).toMatchObject({
      eligible: true,
      reason: 'user_eligible_for_reward',
      entitlement: { type: 7, sku_id: '521847234246082599', subscription_id: s.id },
    });
    expect((await api(stack, user, 'POST', `${sub(s.id)}/promotion-reward`)).body).toEqual({
      eligible: false,
      reason: 'user_not_eligible_for_experiment',
    });
    const boost = await subscribed(PLANS.boostMonthly);
    expect((await api(stack, boost.user, 'POST', `${sub(boost.s.id)}/promotion-reward`)).body.eligible).toBe(false);
    expect(answer(await api(stack, boost.user, 'POST', `${sub(s.id)}/promotion-reward`))).toEqual(UNKNOWN_SUBSCRIPTION);
  });
});
