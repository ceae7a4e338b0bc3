import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbPrefix } from '@kith/platform/testing';
import { startBilling } from '../../src/app.js';
import { billingConfigSchema } from '../../src/config.js';
import {
  addCard,
  api,
  newUser,
  PLANS,
  purchase,
  startBillingStack,
  stopAll,
  stopBillingStack,
  STRIPE_KEY,
  type BillingStack,
  type Body,
  type StackUser,
} from './harness.js';

/**
 * Billing on a database of this file's own: the tests move the scheduler's clock by months, and on
 * the database the other files share it would renew (and charge) their subscriptions too, and
 * theirs could fill a tick's batch before this file's are reached.
 */
const DB_PREFIX = testDbPrefix('renewals');
let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack({ DB_PREFIX });
});
afterAll(() => stopBillingStack(stack));

const DAY = 86_400_000;
const sub = (id: string) => `/users/@me/billing/subscriptions/${id}`;
const charges = async (userId: string): Promise<number> =>
  ((await (await fetch(`${stack.stripeUrl}/__kith/charges?user_id=${userId}`)).json()) as { count: number }).count;

async function subscribed(plan = PLANS.nitroMonthly): Promise<{ user: StackUser; card: Body; s: Body }> {
  const user = await newUser(stack);
  const card = await addCard(stack, user);
  const res = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(plan, card.id));
  expect(res.status).toBe(200);
  return { user, card, s: res.body };
}

/** Moves the scheduler's clock and lets it work through what is due by then. */
async function after(ms: number): Promise<void> {
  stack.clock.advance(ms);
  await stack.billing.scheduler.tick();
}

describe('renewals', () => {
  it('when a period ends, then the scheduler charges the next one off session and the subscription runs on', async () => {
    const { user, s } = await subscribed();
    await after(32 * DAY);
    const renewed = (await api(stack, user, 'GET', sub(s.id))).body;
    expect(renewed.status).toBe(1);
    expect(renewed.current_period_start).toBe(s.current_period_end);
    expect(new Date(renewed.current_period_end).getTime()).toBeGreaterThan(new Date(s.current_period_end).getTime());
    expect(renewed.latest_invoice).toMatchObject({ status: 2, total: 999, subscription_period_start: s.current_period_end });
    expect(await charges(user.userId)).toBe(2);
    // Nothing is due again until the new period ends.
    await after(DAY);
    expect(await charges(user.userId)).toBe(2);
  });

  it('when a downgrade waits in renewal_mutations, then the renewal bills the new plan and its slots follow', async () => {
    const { user, s } = await subscribed();
    await api(stack, user, 'PATCH', sub(s.id), { items: [{ plan_id: PLANS.basicMonthly }] });
    expect((await api(stack, user, 'GET', '/users/@me/guilds/premium/subscription-slots')).body).toHaveLength(2);
    await after(32 * DAY);
    const renewed = (await api(stack, user, 'GET', sub(s.id))).body;
    expect(renewed.items.map((i: Body) => i.plan_id)).toEqual([PLANS.basicMonthly]);
    expect(renewed.renewal_mutations).toBeUndefined();
    expect(renewed.latest_invoice.total).toBe(299);
    expect((await api(stack, user, 'GET', '/users/@me/guilds/premium/subscription-slots')).body).toHaveLength(0);
  });

  it('when renewals keep failing, then it goes past due, billing retry, account hold and ends, with no money taken', async () => {
    const { user, s } = await subscribed();
    const failing = await addCard(stack, user, 'pm_card_chargeCustomerFail');
    expect((await api(stack, user, 'PATCH', sub(s.id), { payment_source_id: failing.id })).body.payment_source_id).toBe(failing.id);
    const statuses = [];
    await after(32 * DAY);
    statuses.push((await api(stack, user, 'GET', sub(s.id))).body.status);
    for (const days of [2, 4, 8]) {
      await after(days * DAY);
      statuses.push((await api(stack, user, 'GET', `${sub(s.id)}`)).body.status);
    }
    expect(statuses).toEqual([2, 7, 6, 4]);
    expect(await charges(user.userId)).toBe(1);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions')).body).toEqual([]);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions?include_inactive=true')).body).toHaveLength(1);
    const invoices = (await api(stack, user, 'GET', `${sub(s.id)}/invoices`)).body as Body[];
    expect(invoices.map((i) => i.status)).toEqual([4, 2]);
  });

  it('when a past-due invoice is paid with a good card, then the subscription is active for that period', async () => {
    const { user, s, card } = await subscribed(PLANS.boostMonthly);
    const failing = await addCard(stack, user, 'pm_card_chargeCustomerFail');
    await api(stack, user, 'PATCH', sub(s.id), { payment_source_id: failing.id });
    await after(32 * DAY);
    const pastDue = (await api(stack, user, 'GET', sub(s.id))).body;
    expect(pastDue.status).toBe(2);
    const declined = await api(stack, user, 'POST', `${sub(s.id)}/invoices/${pastDue.latest_invoice.id}/pay`, { payment_source_id: null });
    expect(declined.body.code).toBe(100054);
    const paid = await api(stack, user, 'POST', `${sub(s.id)}/invoices/${pastDue.latest_invoice.id}/pay`, { payment_source_id: card.id });
    expect(paid.body).toMatchObject({ status: 1, payment_source_id: card.id, current_period_start: s.current_period_end });
    expect(await charges(user.userId)).toBe(2);
  });

  it('when a canceled subscription’s period ends, then it ends and its boost slots go', async () => {
    const { user, s } = await subscribed();
    await api(stack, user, 'DELETE', sub(s.id));
    await after(32 * DAY);
    expect((await api(stack, user, 'GET', sub(s.id))).body.status).toBe(4);
    expect((await api(stack, user, 'GET', '/users/@me/guilds/premium/subscription-slots')).body).toEqual([]);
    expect(await charges(user.userId)).toBe(1);
  });

  it('when a pause was asked, then it pauses at period end and is charged again when the pause ends', async () => {
    const { user, s } = await subscribed();
    await api(stack, user, 'PATCH', sub(s.id), { status: 8, pause_duration: 30 });
    await after(32 * DAY);
    const paused = (await api(stack, user, 'GET', sub(s.id))).body;
    expect(paused.status).toBe(8);
    expect(paused.pause_ends_at).toEqual(expect.any(String));
    expect(await charges(user.userId)).toBe(1);
    await after(31 * DAY);
    expect((await api(stack, user, 'GET', sub(s.id))).body.status).toBe(1);
    expect(await charges(user.userId)).toBe(2);
  });

  it('when two replicas run their schedulers at once, then every due subscription is renewed and charged once', async () => {
    const subs = await Promise.all(Array.from({ length: 6 }, () => subscribed(PLANS.boostMonthly)));
    const replica = await startBilling(
      billingConfigSchema.parse({
        ...stack.under.stores,
        HTTP_PORT: '0',
        GRPC_PORT: '0',
        DB_PREFIX,
        LOG_LEVEL: 'silent',
        INTERNAL_TOKEN_PUBLIC_KEY: stack.under.keys.publicKey,
        AUTH_GRPC_ADDR: `127.0.0.1:${stack.under.auth.grpcPort}`,
        GUILDS_GRPC_ADDR: `127.0.0.1:${stack.guilds.grpcPort}`,
        STRIPE_API_URL: stack.stripeUrl,
        STRIPE_SECRET_KEY: STRIPE_KEY,
        RENEWAL_POLL_MS: '3600000',
      }),
      undefined,
      stack.clock,
    );
    try {
      stack.clock.advance(32 * DAY);
      await Promise.all([stack.billing.scheduler.tick(), replica.scheduler.tick(), stack.billing.scheduler.tick()]);
      await replica.scheduler.tick();
      for (const { user, s } of subs) {
        expect(await charges(user.userId)).toBe(2);
        expect(((await api(stack, user, 'GET', `${sub(s.id)}/invoices`)).body as Body[]).length).toBe(2);
      }
    } finally {
      await stopAll(replica.closers);
    }
  });
});

describe('a renewal killed mid-way', () => {
  it('when the billing process dies after the gateway charged, then the renewal run again is answered that charge, not charged twice', async () => {
    // The separate process below runs on the real clock.
    stack.clock.reset();
    const { user, s } = await subscribed(PLANS.boostMonthly);
    const due = new Date(Date.now() - 60_000);
    await stack.db.updateTable('subscriptions').set({ current_period_end: due, next_action_at: due }).where('id', '=', s.id).execute();
    stack.stripe.injectFault('hang_after_charge', 1, user.userId);
    const child = spawn(process.execPath, [fileURLToPath(new URL('../../dist/main.js', import.meta.url))], {
      env: {
        ...process.env,
        ...stack.under.stores,
        HTTP_PORT: '0',
        GRPC_PORT: '0',
        DB_PREFIX,
        LOG_LEVEL: 'silent',
        INTERNAL_TOKEN_PUBLIC_KEY: stack.under.keys.publicKey,
        STRIPE_API_URL: stack.stripeUrl,
        STRIPE_SECRET_KEY: STRIPE_KEY,
        PAYMENT_GATEWAY_TIMEOUT_MS: '60000',
        RENEWAL_POLL_MS: '100',
      },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      for (let i = 0; i < 300 && (await charges(user.userId)) < 2; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await charges(user.userId)).toBe(2);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    // The dead process's transaction rolled back: the subscription still waits for its renewal.
    const before = await stack.db
      .selectFrom('subscriptions')
      .select(['current_period_end', 'status'])
      .where('id', '=', s.id)
      .executeTakeFirstOrThrow();
    expect(before.current_period_end.getTime()).toBe(due.getTime());
    await stack.billing.scheduler.tick();
    const renewed = (await api(stack, user, 'GET', sub(s.id))).body;
    expect(renewed.status).toBe(1);
    expect(renewed.current_period_start).toBe(due.toISOString());
    expect(await charges(user.userId)).toBe(2);
  });
});
