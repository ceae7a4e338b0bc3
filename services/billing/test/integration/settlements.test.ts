import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbPrefix, testSigner } from '@kith/platform/testing';
import { call } from '../../../../gateway/test/integration/harness.js';
import {
  addCard,
  api,
  newUser,
  PLANS,
  purchase,
  startBillingStack,
  stopBillingStack,
  STRIPE_KEY,
  type BillingStack,
  type Body,
  type StackUser,
} from './harness.js';

let stack: BillingStack;
beforeAll(async () => {
  stack = await startBillingStack();
});
afterAll(() => stopBillingStack(stack));

const sub = (id: string) => `/users/@me/billing/subscriptions/${id}`;
const gatewayCount = async (what: 'charges' | 'refunds', userId: string): Promise<{ count: number; amount: number }> =>
  (await (await fetch(`${stack.stripeUrl}/__kith/${what}?user_id=${userId}`)).json()) as { count: number; amount: number };
const charges = async (userId: string) => (await gatewayCount('charges', userId)).count;

async function subscribed(plan = PLANS.boostMonthly, token = 'pm_card_visa'): Promise<{ user: StackUser; card: Body; s: Body }> {
  const user = await newUser(stack);
  const card = await addCard(stack, user, token);
  const res = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(plan, card.id));
  expect(res.status).toBe(200);
  return { user, card, s: res.body };
}

/** The payments recorded for a subscription, newest first. */
const paymentsOf = (subscriptionId: string) =>
  stack.db.selectFrom('payments').selectAll().where('subscription_id', '=', subscriptionId).orderBy('id', 'desc').execute();

async function events(name: string, userId: string): Promise<Body[]> {
  const rows = await stack.db
    .selectFrom('outbox' as never)
    .select('envelope' as never)
    .where('subject' as never, '=', `events.billing.${name}` as never)
    .execute();
  return rows
    .map((r) => (r as { envelope: { data: Body; audience: { users?: string[] } } }).envelope)
    .filter((e) => e.audience.users?.includes(userId));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A second billing process (the built one) on the same database and gateway, holding recorded
 * payments for only `leaseMs`, and asking the gateway with a deadline long enough to be killed
 * while it waits.
 */
async function billingProcess(leaseMs: number): Promise<{ child: ChildProcess; port: number; exited: Promise<unknown> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [fileURLToPath(new URL('../../dist/main.js', import.meta.url))], {
    env: {
      ...process.env,
      ...stack.under.stores,
      HTTP_PORT: String(port),
      GRPC_PORT: '0',
      DB_PREFIX: testDbPrefix(),
      LOG_LEVEL: 'silent',
      INTERNAL_TOKEN_PUBLIC_KEY: stack.under.keys.publicKey,
      AUTH_GRPC_ADDR: `127.0.0.1:${stack.under.auth.grpcPort}`,
      GUILDS_GRPC_ADDR: `127.0.0.1:${stack.guilds.grpcPort}`,
      STRIPE_API_URL: stack.stripeUrl,
      STRIPE_SECRET_KEY: STRIPE_KEY,
      PAYMENT_GATEWAY_TIMEOUT_MS: '60000',
      PAYMENT_GATEWAY_RETRIES: '0',
      PAYMENT_LEASE_MS: String(leaseMs),
      PURCHASE_LEASE_MS: String(leaseMs),
      // Its scheduler stays out of the way: the test's process settles.
      RENEWAL_POLL_MS: '3600000',
    },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; i < 300; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { child, port, exited };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('billing process did not start');
}

/** A request straight to a billing process, as the edge signs it for `userId`. */
async function toProcess(port: number, method: 'PATCH' | 'POST', path: string, userId: string, json: unknown) {
  const sign = await testSigner(stack.under.keys.privateKey);
  return call(`http://127.0.0.1:${port}`, path, {
    method,
    headers: { 'x-internal-identity': await sign('billing', { userId }) },
    json,
  });
}

/** Waits until the gateway has counted `count` charges of the user. */
async function untilCharged(userId: string, count: number): Promise<void> {
  for (let i = 0; i < 600 && (await charges(userId)) < count; i++) await new Promise((r) => setTimeout(r, 50));
  expect(await charges(userId)).toBe(count);
}

/** Retries a request while it answers 100031 (a payment held by an asker whose lease has not passed yet). */
async function whileInProgress(send: () => Promise<{ status: number; body: Body }>): Promise<{ status: number; body: Body }> {
  for (let i = 0; i < 200; i++) {
    const res = await send();
    if (res.body?.code !== 100031) return res;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('still in progress');
}

describe('a charged change recorded before its charge', () => {
  it('when 40 copies of one upgrade race, then the gateway charges once and the subscription is upgraded once', async () => {
    const { user, s } = await subscribed();
    const upgrade = { items: [{ plan_id: PLANS.boostMonthly, quantity: 3 }] };
    const answers = await Promise.all(Array.from({ length: 40 }, () => api(stack, user, 'PATCH', sub(s.id), upgrade)));
    expect(answers.filter((a) => !(a.status === 200 || a.body.code === 100031)).map((a) => [a.status, a.body])).toEqual([]);
    expect(answers.some((a) => a.status === 200 && a.body.items[0].quantity === 3)).toBe(true);
    expect(await charges(user.userId)).toBe(2);
    const after = (await api(stack, user, 'GET', sub(s.id))).body;
    expect(after.items).toEqual([expect.objectContaining({ plan_id: PLANS.boostMonthly, quantity: 3 })]);
    const payments = await paymentsOf(s.id);
    expect(payments.map((p) => p.status)).toEqual([1, 1]);
    // Asked again once done, the change is already there: nothing more is charged.
    expect((await api(stack, user, 'PATCH', sub(s.id), upgrade)).status).toBe(200);
    expect(await charges(user.userId)).toBe(2);
  });

  it('when the process dies between the upgrade’s charge and its settlement, then the payment was recorded and the retried request settles it without a second charge', async () => {
    const { user, s } = await subscribed();
    const worker = await billingProcess(500);
    const upgrade = { items: [{ plan_id: PLANS.boostMonthly, quantity: 2 }] };
    try {
      stack.stripe.injectFault('hang_after_charge', 1, user.userId);
      void toProcess(worker.port, 'PATCH', sub(s.id), user.userId, upgrade).catch(() => undefined);
      await untilCharged(user.userId, 2);
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    // What the dead process committed before asking the gateway: the payment, pending, and its invoice.
    const [pending] = await paymentsOf(s.id);
    expect(pending).toMatchObject({ status: 0, amount: expect.any(Number), refund_due: false });
    expect(pending!.purpose).toMatchObject({ kind: 'change', items: [{ plan_id: PLANS.boostMonthly, quantity: 2 }] });
    expect((await api(stack, user, 'GET', sub(s.id))).body.items[0].quantity).toBe(1);
    const retried = await whileInProgress(() => api(stack, user, 'PATCH', sub(s.id), upgrade));
    expect(retried.status).toBe(200);
    expect(retried.body.items[0].quantity).toBe(2);
    expect(await charges(user.userId)).toBe(2);
    const [settled] = await paymentsOf(s.id);
    expect(settled).toMatchObject({ id: pending!.id, status: 1, gateway_payment_id: expect.stringMatching(/^pi_/) });
    expect((await events('PAYMENT_UPDATE', user.userId)).some((e) => e.data.id === pending!.id && e.data.status === 1)).toBe(true);
  });

  it('when the gateway never answers an upgrade and the subscription is canceled meanwhile, then the scheduler finds the charge, refunds it, and the payment says so', async () => {
    const { user, s } = await subscribed();
    // Both attempts of the request charge (one key) and never hear back.
    stack.stripe.injectFault('hang_after_charge', 2, user.userId);
    const lost = await api(stack, user, 'PATCH', sub(s.id), { items: [{ plan_id: PLANS.boostMonthly, quantity: 4 }] });
    expect(lost.status).toBe(504);
    expect(await charges(user.userId)).toBe(2);
    const [pending] = await paymentsOf(s.id);
    expect(pending!.status).toBe(0);
    expect((await api(stack, user, 'DELETE', sub(s.id))).status).toBe(204);
    await stack.billing.scheduler.tick();
    const [refunded] = await paymentsOf(s.id);
    expect(refunded).toMatchObject({ id: pending!.id, status: 4, amount_refunded: pending!.amount, refund_due: false });
    expect(await gatewayCount('refunds', user.userId)).toMatchObject({ count: 1, amount: pending!.amount });
    expect(await charges(user.userId)).toBe(2);
    const after = (await api(stack, user, 'GET', sub(s.id))).body;
    expect(after).toMatchObject({ status: 3, items: [expect.objectContaining({ quantity: 1 })] });
    const updates = (await events('PAYMENT_UPDATE', user.userId)).filter((e) => e.data.id === pending!.id);
    expect(updates.map((e) => [e.data.status, e.data.amount_refunded])).toEqual(
      expect.arrayContaining([
        [1, 0],
        [4, pending!.amount],
      ]),
    );
    // Another pass finds nothing more to give back.
    await stack.billing.scheduler.tick();
    expect((await gatewayCount('refunds', user.userId)).count).toBe(1);
  });
});

describe('Pay Subscription Invoice recorded before its charge', () => {
  /** An unpaid subscription (its card needed authentication), and a good card to pay its invoice with. */
  async function unpaid(): Promise<{ user: StackUser; s: Body; invoiceId: string; visa: Body }> {
    const user = await newUser(stack);
    const auth = await addCard(stack, user, 'pm_card_authenticationRequired');
    const visa = await addCard(stack, user);
    const res = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.nitroMonthly, auth.id));
    expect(res.body.code).toBe(100047);
    const [s] = (await api(stack, user, 'GET', '/users/@me/billing/subscriptions')).body as Body[];
    const invoices = (await api(stack, user, 'GET', `${sub(s.id)}/invoices`)).body as Body[];
    return { user, s, invoiceId: invoices[0].id, visa };
  }

  it('when 30 copies of one payment race, then one charge is made and the subscription is active', async () => {
    const { user, s, invoiceId, visa } = await unpaid();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => api(stack, user, 'POST', `${sub(s.id)}/invoices/${invoiceId}/pay`, { payment_source_id: visa.id })),
    );
    expect(answers.filter((a) => !(a.status === 200 || [100031, 100008].includes(a.body.code))).map((a) => a.body)).toEqual([]);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(await charges(user.userId)).toBe(1);
    expect((await api(stack, user, 'GET', sub(s.id))).body).toMatchObject({ status: 1, payment_source_id: visa.id });
  });

  it('when the process dies after the invoice’s charge, then the scheduler settles the recorded payment: active, charged once', async () => {
    const { user, s, invoiceId, visa } = await unpaid();
    const worker = await billingProcess(200);
    try {
      stack.stripe.injectFault('hang_after_charge', 1, user.userId);
      void toProcess(worker.port, 'POST', `${sub(s.id)}/invoices/${invoiceId}/pay`, user.userId, { payment_source_id: visa.id }).catch(
        () => undefined,
      );
      await untilCharged(user.userId, 1);
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    expect((await api(stack, user, 'GET', sub(s.id))).body.status).toBe(0);
    // The dead process's lease runs out; the scheduler then asks the gateway with the same key.
    for (let i = 0; i < 100 && (await api(stack, user, 'GET', sub(s.id))).body.status !== 1; i++) {
      await stack.billing.scheduler.tick();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await api(stack, user, 'GET', sub(s.id))).body).toMatchObject({ status: 1, payment_source_id: visa.id });
    expect(await charges(user.userId)).toBe(1);
    const payments = await paymentsOf(s.id);
    // The payment that waited for authentication was canceled (at the gateway too); the recorded one completed.
    expect(payments.map((p) => p.status)).toEqual([1, 5]);
  });
});

describe('a purchase never confirmed', () => {
  it('when the customer has not authenticated a day later, then the charge is canceled at the gateway too: the subscription ends and the charge can no longer be taken', async () => {
    const user = await newUser(stack);
    const auth = await addCard(stack, user, 'pm_card_authenticationRequired');
    const res = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.nitroMonthly, auth.id));
    expect(res.body.code).toBe(100047);
    const waiting = await stack.db.selectFrom('payments').selectAll().where('id', '=', res.body.payment_id).executeTakeFirstOrThrow();
    try {
      stack.clock.advance(25 * 3_600_000);
      await stack.billing.scheduler.tick();
    } finally {
      stack.clock.reset();
    }
    const [ended] = (await api(stack, user, 'GET', '/users/@me/billing/subscriptions?include_inactive=true')).body as Body[];
    expect(ended.status).toBe(4);
    expect((await stack.db.selectFrom('payments').select('status').where('id', '=', waiting.id).executeTakeFirstOrThrow()).status).toBe(5);
    // The customer comes back to the authentication page: nothing is taken.
    expect(stack.stripe.authenticate(waiting.gateway_payment_id!)?.status).toBe('canceled');
    expect(await charges(user.userId)).toBe(0);
  });
});

describe('a purchase its asker abandoned', () => {
  const create = (port: number, user: StackUser, body: unknown) =>
    void toProcess(port, 'POST', '/users/@me/billing/subscriptions', user.userId, body).catch(() => undefined);

  /** Ticks the scheduler until `done` holds (the dead asker's lease runs out first). */
  async function tickUntil(done: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100 && !(await done()); i++) {
      await stack.billing.scheduler.tick();
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('when the process dies after the purchase’s charge and nobody retries, then the scheduler makes it as asked, charged once', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const body = purchase(PLANS.boostMonthly, card.id, { load_id: 'abandoned-purchase' });
    const worker = await billingProcess(300);
    try {
      stack.stripe.injectFault('hang_after_charge', 1, user.userId);
      create(worker.port, user, body);
      await untilCharged(user.userId, 1);
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    const list = async () => (await api(stack, user, 'GET', '/users/@me/billing/subscriptions')).body as Body[];
    expect(await list()).toEqual([]);
    await tickUntil(async () => (await list()).length > 0);
    const [made] = await list();
    expect(made).toMatchObject({ status: 1, items: [expect.objectContaining({ plan_id: PLANS.boostMonthly })] });
    expect(await charges(user.userId)).toBe(1);
    // The client's retry, late, is answered that purchase.
    const retried = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', body);
    expect(retried.body.id).toBe(made!.id);
    expect(await charges(user.userId)).toBe(1);
  });

  it('when a purchase never reached a gateway that was down and its client went away, then the scheduler drops it without charging and its load_id buys once later', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const body = purchase(PLANS.boostMonthly, card.id, { load_id: 'never-charged' });
    // Both attempts of the request find the gateway down: nothing is charged, nothing known.
    stack.stripe.injectFault('down', 2, user.userId);
    expect((await api(stack, user, 'POST', '/users/@me/billing/subscriptions', body)).status).toBe(502);
    const pending = () =>
      stack.db.selectFrom('purchases').select('state').where('user_id', '=', user.userId).where('load_id', '=', 'never-charged').execute();
    expect(await pending()).toEqual([{ state: 'pending' }]);
    await stack.billing.scheduler.tick();
    expect(await pending()).toEqual([]);
    expect(await charges(user.userId)).toBe(0);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions')).body).toEqual([]);
    const bought = await api(stack, user, 'POST', '/users/@me/billing/subscriptions', body);
    expect(bought.status).toBe(200);
    expect(await charges(user.userId)).toBe(1);
  });

  it('when the abandoned purchase can no longer be made (the user bought the tier again meanwhile), then the scheduler refunds what its charge took', async () => {
    const user = await newUser(stack);
    const card = await addCard(stack, user);
    const first = purchase(PLANS.nitroMonthly, card.id, { load_id: 'first-try' });
    const worker = await billingProcess(300);
    try {
      stack.stripe.injectFault('hang_after_charge', 1, user.userId);
      create(worker.port, user, first);
      await untilCharged(user.userId, 1);
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    // The user's client gave up and bought again under a new load_id, once the first one's lease ran out.
    const again = await whileInProgress(() =>
      api(stack, user, 'POST', '/users/@me/billing/subscriptions', purchase(PLANS.nitroMonthly, card.id, { load_id: 'second-try' })),
    );
    expect(again.status).toBe(200);
    expect(await charges(user.userId)).toBe(2);
    const refunds = () => gatewayCount('refunds', user.userId);
    await tickUntil(async () => (await refunds()).count > 0);
    expect(await refunds()).toMatchObject({ count: 1, amount: 999 });
    expect(await charges(user.userId)).toBe(2);
    const payment = await stack.db
      .selectFrom('payments')
      .selectAll()
      .where('user_id', '=', user.userId)
      .where('status', '=', 4)
      .executeTakeFirstOrThrow();
    expect(payment).toMatchObject({ amount: 999, amount_refunded: 999, error_code: 100004 });
    expect((await events('PAYMENT_UPDATE', user.userId)).some((e) => e.data.id === payment.id && e.data.status === 4)).toBe(true);
    expect((await api(stack, user, 'GET', '/users/@me/billing/subscriptions')).body).toHaveLength(1);
    // The first purchase is over: asked again, it answers why.
    expect((await api(stack, user, 'POST', '/users/@me/billing/subscriptions', first)).body.code).toBe(100004);
  });
});
