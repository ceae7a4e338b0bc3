import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, fieldCode, newUser } from './client.js';
import { GatewayClient } from './ws-client.js';

/*
 * Billing through `npm start`'s gateway, paying at the local payment gateway it runs (Stripe's API
 * over Stripe's test cards): a newcomer subscribes with no keys configured.
 */
const NITRO_MONTHLY = '511651880837840896';
const BOOST_MONTHLY = '590665532894740483';
const NITRO_SKU = '521847234246082599';
const paymentGateway = () => `http://127.0.0.1:${8113 + inject('portOffset')}`;
const address = { name: 'Ana', line_1: '1 Main St', city: 'Springfield', country: 'US' };

async function chargesOf(userId: string): Promise<number> {
  const res = await fetch(`${paymentGateway()}/__kith/charges?user_id=${userId}`);
  return ((await res.json()) as { count: number }).count;
}

async function userWithCard(token = 'pm_card_visa') {
  const user = await newUser();
  const me = await api('GET', '/users/@me', { token: user.token });
  const card = await api('POST', '/users/@me/billing/payment-sources', {
    token: user.token,
    body: { token, payment_gateway: 1, billing_address: address },
  });
  expect(card.status).toBe(200);
  return { ...user, id: me.json.id as string, card: card.json as { id: string } };
}

describe('billing as npm start serves it', () => {
  it('when a newcomer looks up Nitro’s plans, adds a test card and subscribes, then it is active, charged once, and the events reach their socket', async () => {
    const plans = await api('GET', `/store/published-listings/skus/${NITRO_SKU}/subscription-plans`);
    expect((plans.json as unknown as { id: string; price: number }[]).find((p) => p.id === NITRO_MONTHLY)?.price).toBe(999);
    const user = await userWithCard();
    const socket = await GatewayClient.connect(user.token);
    const res = await api('POST', '/users/@me/billing/subscriptions', {
      token: user.token,
      body: {
        items: [{ plan_id: NITRO_MONTHLY }],
        payment_source_id: user.card.id,
        purchase_token: randomUUID(),
        expected_invoice_price: { currency: 'usd', amount: 999 },
        load_id: randomUUID(),
      },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 1, currency: 'usd', payment_source_id: user.card.id });
    expect(await chargesOf(user.id)).toBe(1);
    const seen = await socket.takeThrough((d) => d.t === 'PAYMENT_UPDATE');
    expect([...seen.map((d) => d.t), 'PAYMENT_UPDATE']).toContain('USER_SUBSCRIPTIONS_UPDATE');
    socket.socket.close();
    const list = await api('GET', '/users/@me/billing/subscriptions', { token: user.token });
    expect((list.json as unknown as { id: string }[]).map((s) => s.id)).toEqual([res.json.id]);
  });

  it('when 200 creates with one load_id race through the gateway, then one subscription and one charge exist; another body under it is refused', async () => {
    const user = await userWithCard();
    const body = {
      items: [{ plan_id: BOOST_MONTHLY }],
      payment_source_id: user.card.id,
      purchase_token: randomUUID(),
      load_id: randomUUID(),
    };
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => api('POST', '/users/@me/billing/subscriptions', { token: user.token, body })),
    );
    expect(answers.filter((a) => a.status !== 200).map((a) => a.json)).toEqual([]);
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
    expect(await chargesOf(user.id)).toBe(1);
    const other = await api('POST', '/users/@me/billing/subscriptions', {
      token: user.token,
      body: { ...body, items: [{ plan_id: BOOST_MONTHLY, quantity: 3 }] },
    });
    expect(fieldCode(other.json, 'load_id')).toBe('LOAD_ID_REUSED');
    expect(((await api('GET', '/users/@me/billing/subscriptions', { token: user.token })).json as unknown as unknown[]).length).toBe(1);
  });

  it('when prices mismatch, a card declines or needs confirmation, or another user asks, then the platform’s codes answer and nothing is charged', async () => {
    const user = await userWithCard();
    const buy = (extra: Record<string, unknown>, token = user.token) =>
      api('POST', '/users/@me/billing/subscriptions', {
        token,
        body: { items: [{ plan_id: BOOST_MONTHLY }], payment_source_id: user.card.id, purchase_token: 'p', ...extra },
      });
    expect((await buy({ expected_invoice_price: { currency: 'usd', amount: 1 } })).json.code).toBe(100008);
    expect((await buy({ items: [{ plan_id: '1' }] })).json.code).toBe(100005);
    expect(await chargesOf(user.id)).toBe(0);
    const declining = await userWithCard('pm_card_chargeCustomerFail');
    const declined = await api('POST', '/users/@me/billing/subscriptions', {
      token: declining.token,
      body: { items: [{ plan_id: BOOST_MONTHLY }], payment_source_id: declining.card.id, purchase_token: 'p' },
    });
    expect(declined.json.code).toBe(100054);
    const confirming = await userWithCard('pm_card_threeDSecure2Required');
    const confirm = await api('POST', '/users/@me/billing/subscriptions', {
      token: confirming.token,
      body: {
        items: [{ plan_id: BOOST_MONTHLY }],
        payment_source_id: confirming.card.id,
        purchase_token: 'p',
        return_url: 'https://example.com/back',
      },
    });
    expect(confirm.json.code).toBe(100047);
    const mine = await buy({});
    const stranger = await newUser();
    expect((await api('GET', `/users/@me/billing/subscriptions/${mine.json.id}`, { token: stranger.token })).status).toBe(404);
    expect((await api('GET', '/users/@me/billing/subscriptions')).status).toBe(401);
  });
});

describe('boosts and subscription changes as npm start serves them', () => {
  it('when a Nitro subscriber boosts their guild, then the guild reaches tier 1 and its socket hears it; premium_type is 2', async () => {
    const user = await userWithCard();
    const socket = await GatewayClient.connect(user.token);
    const bought = await api('POST', '/users/@me/billing/subscriptions', {
      token: user.token,
      body: { items: [{ plan_id: NITRO_MONTHLY }], payment_source_id: user.card.id, purchase_token: 'p' },
    });
    expect(bought.status).toBe(200);
    const premium = await socket.takeThrough((d) => d.t === 'USER_UPDATE' && (d.d as { premium_type?: number }).premium_type === 2);
    expect(premium).toBeDefined();
    expect((await api('GET', '/users/@me', { token: user.token })).json.premium_type).toBe(2);
    const guild = await api('POST', '/guilds', { token: user.token, body: { name: 'boosted guild' } });
    const slots = (await api('GET', '/users/@me/guilds/premium/subscription-slots', { token: user.token })).json as unknown as {
      id: string;
    }[];
    expect(slots).toHaveLength(2);
    const applied = await api('PUT', `/guilds/${guild.json.id as string}/premium/subscriptions`, {
      token: user.token,
      body: { user_premium_guild_subscription_slot_ids: slots.map((s) => s.id) },
    });
    expect(applied.status).toBe(200);
    await socket.takeThrough(
      (d) => d.t === 'GUILD_UPDATE' && (d.d as { premium_subscription_count?: number }).premium_subscription_count === 2,
    );
    expect((await api('GET', `/guilds/${guild.json.id as string}`, { token: user.token })).json).toMatchObject({
      premium_subscription_count: 2,
      premium_tier: 1,
    });
    const cooldown = await api('GET', '/users/@me/guilds/premium/subscriptions/cooldown', { token: user.token });
    expect(cooldown.json).toMatchObject({ limit: expect.any(Number), remaining: expect.any(Number) });
    socket.socket.close();
  });

  it('when a subscriber previews, upgrades, lists invoices and cancels, then each answers in the platform’s shape', async () => {
    const user = await userWithCard();
    const sub = await api('POST', '/users/@me/billing/subscriptions', {
      token: user.token,
      body: { items: [{ plan_id: BOOST_MONTHLY }], payment_source_id: user.card.id, purchase_token: 'p' },
    });
    const id = sub.json.id as string;
    const preview = await api('POST', '/users/@me/billing/subscriptions/preview', {
      token: user.token,
      body: { items: [{ plan_id: BOOST_MONTHLY, quantity: 2 }] },
    });
    expect(preview.json).toMatchObject({ total: 998, currency: 'usd' });
    const change = await api('PATCH', `/users/@me/billing/subscriptions/${id}/preview`, {
      token: user.token,
      body: { items: [{ plan_id: BOOST_MONTHLY, quantity: 2 }] },
    });
    const upgraded = await api('PATCH', `/users/@me/billing/subscriptions/${id}`, {
      token: user.token,
      body: { items: [{ plan_id: BOOST_MONTHLY, quantity: 2 }], expected_invoice_price: { currency: 'usd', amount: change.json.total } },
    });
    expect(upgraded.json.items).toEqual([expect.objectContaining({ quantity: 2 })]);
    expect(
      ((await api('GET', `/users/@me/billing/subscriptions/${id}/invoices`, { token: user.token })).json as unknown as unknown[]).length,
    ).toBe(2);
    expect((await api('GET', `/users/@me/billing/subscriptions/${id}/preview`, { token: user.token })).json.total).toBe(998);
    expect((await api('DELETE', `/users/@me/billing/subscriptions/${id}`, { token: user.token })).status).toBe(204);
    expect((await api('PATCH', `/users/@me/billing/subscriptions/${id}`, { token: user.token, body: { status: 3 } })).json.code).toBe(
      100007,
    );
    expect((await api('POST', `/users/@me/billing/subscriptions/${id}/promotion-reward`, { token: user.token })).json).toEqual({
      eligible: false,
      reason: 'user_not_eligible_for_experiment',
    });
  });
});
