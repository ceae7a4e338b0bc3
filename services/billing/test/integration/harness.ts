import { createDatabase, databaseUrl, type Kysely } from '@kith/platform';
import { testDbPrefix, testSigner } from '@kith/platform/testing';
import {
  api,
  call,
  newUser,
  serviceEnv,
  startTestAuth,
  startTestGateway,
  stopAll,
  type Answer,
  type AuthUnderTest,
  type CallOptions,
  type StackUser,
} from '../../../../gateway/test/integration/harness.js';
import type { RunningGuilds } from '../../../guilds/src/app.js';
import { startTestGuilds } from '../../../guilds/test/integration/harness.js';
import { startBilling, type RunningBilling } from '../../src/app.js';
import { billingConfigSchema } from '../../src/config.js';
import { StripeServer } from '../../src/dev/stripe.server.js';
import type { Clock } from '../../src/domain/ports.js';
import type { BillingDatabase } from '../../src/store/schema.js';

export { api, newUser, stopAll, type Answer, type StackUser };

/** Tests read response bodies and event payloads freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

const DB_PREFIX = testDbPrefix();
export const BILLING_DATABASE = `${DB_PREFIX}_billing`;
export const STRIPE_KEY = 'sk_test_billing_integration';

/** The platform's real plan ids, as the migration seeds them. */
export const PLANS = {
  nitroMonthly: '511651880837840896',
  nitroYearly: '511651885459963904',
  basicMonthly: '978380692553465866',
  boostMonthly: '590665532894740483',
  boostYearly: '590665538238152709',
};
export const SKUS = { nitro: '521847234246082599', boost: '590663762298667008', basic: '978380684370378762' };

/** A clock the tests move (renewals); it follows real time until set. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  /** Back to real time. */
  reset(): void {
    this.offsetMs = 0;
  }
}

/**
 * Real auth and guilds, the billing service in this process (its own database, HTTP and gRPC on
 * free ports) against a loopback gateway speaking Stripe's API, and an edge in front of them.
 */
export interface BillingStack {
  under: AuthUnderTest;
  guilds: RunningGuilds;
  billing: RunningBilling;
  stripe: StripeServer;
  stripeUrl: string;
  clock: TestClock;
  gateway: Awaited<ReturnType<typeof startTestGateway>>;
  base: string;
  db: Kysely<BillingDatabase>;
}

export async function startBillingStack(env: Record<string, string> = {}): Promise<BillingStack> {
  const under = await startTestAuth();
  const common = serviceEnv(under);
  const guilds = await startTestGuilds(under);
  const stripe = new StripeServer({ secretKey: STRIPE_KEY });
  const stripeUrl = await stripe.listen();
  const clock = new TestClock();
  const billing = await startBilling(
    billingConfigSchema.parse({
      ...common,
      GUILDS_GRPC_ADDR: `127.0.0.1:${guilds.grpcPort}`,
      STRIPE_API_URL: stripeUrl,
      STRIPE_SECRET_KEY: STRIPE_KEY,
      PAYMENT_GATEWAY_TIMEOUT_MS: '1500',
      PAYMENT_GATEWAY_RETRIES: '1',
      // Renewals run when a test says (scheduler.tick()), on the test's clock.
      RENEWAL_POLL_MS: '3600000',
      ...env,
    }),
    undefined,
    clock,
  );
  const gateway = await startTestGateway(under, {
    GUILDS_HTTP_URL: `http://127.0.0.1:${guilds.httpPort}`,
    BILLING_HTTP_URL: `http://127.0.0.1:${billing.httpPort}`,
    UPSTREAM_PER_CLIENT: '64',
  });
  const database = env.DB_PREFIX ? `${env.DB_PREFIX}_billing` : BILLING_DATABASE;
  const db = createDatabase<BillingDatabase>({ url: databaseUrl(under.stores.DATABASE_URL, database), maxConnections: 2 });
  return { under, guilds, billing, stripe, stripeUrl, clock, gateway, base: gateway.base, db };
}

export async function stopBillingStack(stack: BillingStack | undefined): Promise<void> {
  if (!stack) return;
  await stack.db.destroy();
  await stopAll(stack.gateway.closers, stack.billing.closers, stack.guilds.closers, stack.under.auth.closers);
  await stack.stripe.close();
}

/** A request straight to billing with an identity signed as the edge signs it. */
export async function direct(
  stack: BillingStack,
  method: NonNullable<CallOptions['method']>,
  path: string,
  userId: string,
  json?: unknown,
): Promise<Answer> {
  const sign = await testSigner(stack.under.keys.privateKey);
  const identity = await sign('billing', { userId });
  return call(`http://127.0.0.1:${stack.billing.httpPort}`, path, {
    method,
    headers: { 'x-internal-identity': identity },
    ...(json !== undefined ? { json } : {}),
  });
}

export const ADDRESS = { name: 'Ana Test', line_1: '1 Main Street', city: 'Springfield', state: 'CA', country: 'US', postal_code: '94105' };

/** Adds a card by one of Stripe's test payment methods or tokens; returns the payment source. */
export async function addCard(stack: BillingStack, user: StackUser, token = 'pm_card_visa'): Promise<Body> {
  const res = await api(stack, user, 'POST', '/users/@me/billing/payment-sources', { token, payment_gateway: 1, billing_address: ADDRESS });
  if (res.status !== 200) throw new Error(`adding ${token}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export function purchase(plan: string, sourceId: string | undefined, extra: Record<string, unknown> = {}) {
  return {
    items: [{ plan_id: plan }],
    ...(sourceId ? { payment_source_id: sourceId } : {}),
    purchase_token: 'e1b1e1b1-purchase-token',
    ...extra,
  };
}
