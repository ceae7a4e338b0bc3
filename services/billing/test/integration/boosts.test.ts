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

let stack: BillingStack;
beforeAll(async () => {
  // Few changes per window, so the cooldown is reached in a test.
  stack = await startBillingStack({ BOOST_CHANGE_LIMIT: '4' });
});
afterAll(() => stopBillingStack(stack));

const DAY = 86_400_000;
const slotsPath = '/users/@me/guilds/premium/subscription-slots';

async function booster(plan = PLANS.nitroMonthly, quantity = 1): Promise<{ user: StackUser; s: Body; slots: Body[]; guild: string }> {
  const user = await newUser(stack);
  const card = await addCard(stack, user);
  const res = await api(
    stack,
    user,
    'POST',
    '/users/@me/billing/subscriptions',
    purchase(plan, card.id, { items: [{ plan_id: plan, quantity }] }),
  );
  expect(res.status).toBe(200);
  const guild = await api(stack, user, 'POST', '/guilds', { name: 'boosted' });
  expect(guild.status).toBe(201);
  return { user, s: res.body, slots: (await api(stack, user, 'GET', slotsPath)).body as Body[], guild: guild.body.id };
}

const guildOf = async (user: StackUser, id: string) => (await api(stack, user, 'GET', `/guilds/${id}`)).body;

async function events(name: string): Promise<Body[]> {
  const rows = await stack.db
    .selectFrom('outbox' as never)
    .select('envelope' as never)
    .where('subject' as never, '=', `events.billing.${name}` as never)
    .execute();
  return rows.map((r) => (r as { envelope: { data: unknown; audience: unknown } }).envelope);
}

describe('premium guild subscription slots', () => {
  it('when Nitro is bought, then the user holds two slots and premium type 2; applying both makes the guild tier 1', async () => {
    const { user, slots, guild, s } = await booster();
    expect(slots.map((x) => x.subscription_id)).toEqual([s.id, s.id]);
    expect(slots[0]).toMatchObject({ canceled: false, cooldown_ends_at: null, premium_guild_subscription: null });
    expect((await api(stack, user, 'GET', '/users/@me')).body.premium_type).toBe(2);
    const applied = await api(stack, user, 'PUT', `/guilds/${guild}/premium/subscriptions`, {
      user_premium_guild_subscription_slot_ids: slots.map((x) => x.id),
    });
    expect(applied.status).toBe(200);
    expect(applied.body).toHaveLength(2);
    expect(applied.body[0]).toMatchObject({ guild_id: guild, user_id: user.userId, ended: false, user: { id: user.userId } });
    expect(await guildOf(user, guild)).toMatchObject({ premium_subscription_count: 2, premium_tier: 1 });
    const mine = await api(stack, user, 'GET', '/users/@me/guilds/premium/subscriptions');
    expect((mine.body as Body[]).map((b) => b.guild_id)).toEqual([guild, guild]);
    expect((await api(stack, user, 'GET', '/users/@me/guilds/premium/subscriptions?paused=true')).body).toEqual([]);
    const after = (await api(stack, user, 'GET', slotsPath)).body as Body[];
    expect(after[0].premium_guild_subscription).toMatchObject({ guild_id: guild, ended: false, user: { id: user.userId } });
    expect(after[0].cooldown_ends_at).toEqual(expect.any(String));
    const cooldown = await api(stack, user, 'GET', '/users/@me/guilds/premium/subscriptions/cooldown');
    expect(cooldown.body).toMatchObject({ limit: 4, remaining: 2 });
    const boostEvents = (await events('GUILD_APPLIED_BOOSTS_UPDATE')).filter((e) => e.data.guild_id === guild);
    expect(boostEvents).toHaveLength(2);
    expect(boostEvents[0].audience).toEqual({ guilds: [guild] });
    expect((await events('USER_PREMIUM_GUILD_SUBSCRIPTION_SLOT_UPDATE')).filter((e) => e.audience.users[0] === user.userId)).toHaveLength(
      2,
    );
  });

  it('when a boost is removed, then the guild loses it; a moved slot waits out its cooldown; too many changes are refused', async () => {
    const { user, slots, guild } = await booster(PLANS.boostMonthly, 3);
    const applied = (
      await api(stack, user, 'PUT', `/guilds/${guild}/premium/subscriptions`, {
        user_premium_guild_subscription_slot_ids: [slots[0].id, slots[1].id],
      })
    ).body as Body[];
    expect((await api(stack, user, 'DELETE', `/guilds/${guild}/premium/subscriptions/${applied[0].id}`)).status).toBe(204);
    expect((await guildOf(user, guild)).premium_subscription_count).toBe(1);
    const again = await api(stack, user, 'PUT', `/guilds/${guild}/premium/subscriptions`, {
      user_premium_guild_subscription_slot_ids: [slots[0].id],
    });
    expect(again.body.code).toBe(50069);
    expect(
      (await api(stack, user, 'PUT', `/guilds/${guild}/premium/subscriptions`, { user_premium_guild_subscription_slot_ids: [slots[2].id] }))
        .status,
    ).toBe(200);
    expect((await api(stack, user, 'GET', '/users/@me/guilds/premium/subscriptions/cooldown')).body.remaining).toBe(0);
    const second = await api(stack, user, 'POST', '/guilds', { name: 'second' });
    const over = await api(stack, user, 'DELETE', `/guilds/${guild}/premium/subscriptions/${applied[1].id}`);
    expect(over.body.code).toBe(50069);
    expect(
      (
        await api(stack, user, 'PUT', `/guilds/${second.body.id}/premium/subscriptions`, {
          user_premium_guild_subscription_slot_ids: [slots[1].id],
        })
      ).body.code,
    ).toBe(50069);
    expect((await guildOf(user, guild)).premium_subscription_count).toBe(2);
    // Once the window has passed, the user may change again.
    stack.clock.advance(8 * DAY);
    expect(
      (
        await api(stack, user, 'PUT', `/guilds/${second.body.id}/premium/subscriptions`, {
          user_premium_guild_subscription_slot_ids: [slots[1].id],
        })
      ).status,
    ).toBe(200);
    expect((await guildOf(user, guild)).premium_subscription_count).toBe(1);
    expect((await guildOf(user, second.body.id)).premium_subscription_count).toBe(1);
  });

  it('when 100 applications of three slots race, then never more boosts than slots exist', { timeout: 90_000 }, async () => {
    const { user, slots, guild } = await booster(PLANS.boostMonthly, 3);
    const made = await Promise.all(['second', 'third'].map((name) => api(stack, user, 'POST', '/guilds', { name })));
    expect(made.map((m) => m.status)).toEqual([201, 201]);
    const guilds = [guild, ...made.map((m) => m.body.id as string)];
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api(stack, user, 'PUT', `/guilds/${guilds[i % 3]}/premium/subscriptions`, {
          user_premium_guild_subscription_slot_ids: [slots[(i * 7) % 3].id],
        }),
      ),
    );
    expect(
      answers.filter((a) => !(a.status === 200 || a.body.code === 50069 || a.body.code === 100034)).map((a) => [a.status, a.body]),
    ).toEqual([]);
    const live = await stack.db
      .selectFrom('guild_boosts')
      .selectAll()
      .where('user_id', '=', user.userId)
      .where('ended', '=', false)
      .execute();
    expect(live.length).toBeLessThanOrEqual(3);
    expect(new Set(live.map((b) => b.slot_id)).size).toBe(live.length);
    const counts = await Promise.all(guilds.map(async (g) => (await guildOf(user, g)).premium_subscription_count as number));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(live.length);
  });

  it('when a slot is canceled, then it says so (twice is 100007) and can be uncanceled; others’ and unknown slots are 10055', async () => {
    const { user, slots, guild } = await booster(PLANS.boostMonthly, 1);
    await api(stack, user, 'PUT', `/guilds/${guild}/premium/subscriptions`, { user_premium_guild_subscription_slot_ids: [slots[0].id] });
    const canceled = await api(stack, user, 'POST', `${slotsPath}/${slots[0].id}/cancel`);
    expect(canceled.body).toMatchObject({ id: slots[0].id, canceled: true });
    expect((await events('GUILD_APPLIED_BOOSTS_UPDATE')).some((e) => e.data.guild_id === guild && e.data.ends_at)).toBe(true);
    expect((await api(stack, user, 'POST', `${slotsPath}/${slots[0].id}/cancel`)).body.code).toBe(100007);
    expect((await api(stack, user, 'POST', `${slotsPath}/${slots[0].id}/uncancel`)).body.canceled).toBe(false);
    const other = await newUser(stack);
    expect((await api(stack, other, 'POST', `${slotsPath}/${slots[0].id}/cancel`)).body.code).toBe(10055);
    expect((await api(stack, user, 'POST', `${slotsPath}/1/cancel`)).body.code).toBe(10055);
    expect(
      (
        await api(stack, other, 'PUT', `/guilds/${guild}/premium/subscriptions`, {
          user_premium_guild_subscription_slot_ids: [slots[0].id],
        })
      ).body.code,
    ).toBe(50001);
    expect(
      (await api(stack, user, 'PUT', `/guilds/1/premium/subscriptions`, { user_premium_guild_subscription_slot_ids: [slots[0].id] })).body
        .code,
    ).toBe(10004);
    expect(
      (await api(stack, user, 'PUT', `/guilds/${guild}/premium/subscriptions`, {})).body.errors.user_premium_guild_subscription_slot_ids
        ._errors[0].code,
    ).toBe('BASE_TYPE_REQUIRED');
    expect((await api(stack, other, 'GET', '/users/@me/guilds/premium/subscriptions/cooldown')).body.code).toBe(10050);
    expect((await api(stack, null, 'GET', slotsPath)).status).toBe(401);
  });

  it('when a canceled add-on slot reaches renewal, then it goes, the add-on bills one less, and the guild loses the boost', async () => {
    stack.clock.reset();
    const { user, slots, guild, s } = await booster(PLANS.boostMonthly, 2);
    await api(stack, user, 'PUT', `/guilds/${guild}/premium/subscriptions`, { user_premium_guild_subscription_slot_ids: [slots[0].id] });
    await api(stack, user, 'POST', `${slotsPath}/${slots[0].id}/cancel`);
    stack.clock.advance(32 * DAY);
    await stack.billing.scheduler.tick();
    const renewed = (await api(stack, user, 'GET', `/users/@me/billing/subscriptions/${s.id}`)).body;
    expect(renewed.items[0].quantity).toBe(1);
    expect(renewed.latest_invoice.total).toBe(499);
    expect(((await api(stack, user, 'GET', slotsPath)).body as Body[]).map((x) => x.id)).toEqual([slots[1].id]);
    expect((await guildOf(user, guild)).premium_subscription_count).toBe(0);
  });

  it('when the premium subscription ends, then premium type goes back to 0', async () => {
    stack.clock.reset();
    const { user, s } = await booster();
    await api(stack, user, 'DELETE', `/users/@me/billing/subscriptions/${s.id}`);
    expect((await api(stack, user, 'GET', '/users/@me')).body.premium_type).toBe(2);
    stack.clock.advance(32 * DAY);
    await stack.billing.scheduler.tick();
    expect((await api(stack, user, 'GET', '/users/@me')).body.premium_type).toBe(0);
  });
});
