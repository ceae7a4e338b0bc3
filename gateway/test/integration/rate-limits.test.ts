import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '@kith/platform/testing';
import {
  call,
  closedPort,
  registerUser,
  startTestAuth,
  startTestGateway,
  stopAll,
  TinyUpstream,
  type Answer,
  type AuthUnderTest,
  type TestUser,
} from './harness.js';

/**
 * The edge's rate limits with the production table (RATE_LIMITS_SCALE=1), counted in the real
 * Redis. Each test speaks from loopback addresses of its own, so per-address counts start empty.
 */

let under: AuthUnderTest;
let upstream: TinyUpstream;
/** Two replicas of the edge on one Redis prefix: counts must be shared. */
let edgeA: Awaited<ReturnType<typeof startTestGateway>>;
let edgeB: Awaited<ReturnType<typeof startTestGateway>>;
/** Creates the users the tests need, with limits raised (it counts under another prefix). */
let setup: Awaited<ReturnType<typeof startTestGateway>>;
let nextAddress = 10;
const agents: Agent[] = [];

/** A client on a loopback address no other test uses. */
function newAddress(): Agent {
  const agent = new Agent({ localAddress: `127.0.3.${nextAddress++}` });
  agents.push(agent);
  return agent;
}

beforeAll(async () => {
  under = await startTestAuth();
  upstream = await TinyUpstream.start();
  const shared = { RATE_LIMITS_SCALE: '1', REDIS_PREFIX: `${unique('gw')}:`, WEBHOOKS_HTTP_URL: upstream.url };
  edgeA = await startTestGateway(under, shared);
  edgeB = await startTestGateway(under, shared);
  setup = await startTestGateway(under);
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await stopAll(edgeA?.closers, edgeB?.closers, setup?.closers, under?.auth.closers);
  await upstream?.close();
});

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-reset-after', 'x-ratelimit-bucket'];

function expectRateHeaders(res: Answer, limit: number): void {
  for (const name of RATE_HEADERS) expect(res.headers[name], name).toBeDefined();
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
  expect(Number(res.headers['x-ratelimit-reset-after'])).toBeGreaterThan(0);
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
  expect(res.headers['x-ratelimit-bucket']).toMatch(/^[0-9a-f]{32}$/);
}

function expectRefused(res: Answer, scope: 'user' | 'global' | 'shared'): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: scope === 'global' });
  expect((res.body as { retry_after: number }).retry_after).toBeGreaterThan(0);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.headers['x-ratelimit-scope']).toBe(scope);
  expect(res.headers['x-ratelimit-global']).toBe(scope === 'global' ? 'true' : undefined);
}

const registration = () => {
  const username = unique('rl');
  return { username, email: `${username}@example.com`, password: `pw-${unique()}`, date_of_birth: '1990-01-01', consent: true };
};

describe('rate limit headers', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await registerUser(setup.base);
  });

  it('when a route has no limit of its own, then its answer carries the global bucket of its token: 50 a second', async () => {
    const me = await call(edgeA.base, '/api/v9/users/@me', { token: user.token, dispatcher: newAddress() });
    expect(me.status).toBe(200);
    expectRateHeaders(me, 50);
    expect(Number(me.headers['x-ratelimit-reset-after'])).toBeLessThanOrEqual(1);
  });

  it('when a route has a limit of its own, then its answers carry that bucket, counting down, whatever the status', async () => {
    const address = newAddress();
    const first = await call(edgeA.base, '/api/v9/auth/register', { json: registration(), dispatcher: address });
    const refused = await call(edgeA.base, '/api/v9/auth/register', { json: { consent: false }, dispatcher: address });

    expect(first.status).toBe(201);
    expectRateHeaders(first, 5);
    expect(refused.status).toBe(400);
    expectRateHeaders(refused, 5);
    expect(refused.headers['x-ratelimit-bucket']).toBe(first.headers['x-ratelimit-bucket']);
    expect(Number(refused.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
  });
});

describe('the global limit', () => {
  it('when one token sends 150 requests at once through two replicas, then exactly 50 a window pass and the rest are 429 with the global scope and body', async () => {
    // The window stretched to a minute so the burst surely falls in one, however slow the machine.
    const minute = {
      RATE_LIMITS_SCALE: '1',
      REDIS_PREFIX: `${unique('gw')}:`,
      RATE_LIMIT_OVERRIDES: JSON.stringify({ global: { windowS: 60 } }),
    };
    const [one, two] = [await startTestGateway(under, minute), await startTestGateway(under, minute)];
    try {
      const user = await registerUser(setup.base);
      const address = newAddress();

      const answers = await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          call(i % 2 ? one.base : two.base, '/api/v9/users/@me', { token: user.token, dispatcher: address }),
        ),
      );

      expect(answers.filter((a) => a.status === 200)).toHaveLength(50);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).toHaveLength(100);
      for (const res of refused) {
        expectRefused(res, 'global');
        expect(res.headers['x-ratelimit-remaining']).toBe('0');
      }
    } finally {
      await stopAll(one.closers, two.closers);
    }
  });
});

describe('points taken from Redis several at a time', () => {
  it('when a replica took points for a busy token and the token moves to another replica, then the window admits no more than 50 and refuses at most 4 early per replica', async () => {
    // A window of 10 s so each step surely falls in one window however slow the machine; the
    // test waits for the window's end as the answers announce it.
    const tenSeconds = {
      RATE_LIMITS_SCALE: '1',
      REDIS_PREFIX: `${unique('gw')}:`,
      RATE_LIMIT_OVERRIDES: JSON.stringify({ global: { windowS: 10 } }),
    };
    const [one, two] = [await startTestGateway(under, tenSeconds), await startTestGateway(under, tenSeconds)];
    try {
      const user = await registerUser(setup.base);
      const address = newAddress();
      const me = (edge: { base: string }) => call(edge.base, '/api/v9/users/@me', { token: user.token, dispatcher: address });

      // A first window: 20 requests through one replica (it counts them one by one).
      let last: Answer | undefined;
      for (let i = 0; i < 20; i++) {
        last = await me(one);
        expect(last.status).toBe(200);
      }
      await new Promise((resolve) => setTimeout(resolve, Number(last!.headers['x-ratelimit-reset-after']) * 1000 + 100));

      // The next window: that replica, busy last window, takes 5 points for its first request.
      const first = await me(one);
      expect(first.status).toBe(200);
      expect(first.headers['x-ratelimit-remaining']).toBe('49');
      // The token moves to the other replica: the 4 points held by the first are not its to give.
      const burst = await Promise.all(Array.from({ length: 60 }, () => me(two)));
      expect(burst.filter((a) => a.status === 200)).toHaveLength(45);
      for (const res of burst.filter((a) => a.status !== 200)) expectRefused(res, 'global');
      // The first replica still hands out the 4 it holds, then refuses: 50 in the window in all.
      const back: number[] = [];
      for (let i = 0; i < 5; i++) back.push((await me(one)).status);
      expect(back).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await stopAll(one.closers, two.closers);
    }
  });
});

describe('limits per address', () => {
  it('when one address registers over and over through both replicas, then the sixth is refused and another address still registers', async () => {
    const address = newAddress();
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++)
      answers.push(await call(i % 2 ? edgeA.base : edgeB.base, '/api/v9/auth/register', { json: registration(), dispatcher: address }));

    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expectRefused(answers[5]!, 'user');
    expectRateHeaders(answers[5]!, 5);
    expect(answers[5]!.headers['x-ratelimit-remaining']).toBe('0');
    const elsewhere = await call(edgeA.base, '/api/v9/auth/register', { json: registration(), dispatcher: newAddress() });
    expect(elsewhere.status).toBe(201);
  });

  it('when one address checks usernames over and over, then it is refused past 10 in 10 seconds', async () => {
    const address = newAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await call(edgeB.base, '/api/v9/unique-username/username-attempt-unauthed', {
        json: { username: unique('n') },
        dispatcher: address,
      });
      statuses.push(res.status);
      if (res.status === 429) expectRefused(res, 'user');
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});

describe('webhook calls by token', () => {
  it('when a webhook is called with its token from anywhere, then its own count is shared by every caller and another webhook has its own', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call(edgeA.base, '/api/v9/webhooks/111/the-token', { json: { content: 'hi' }, dispatcher: newAddress() });
      statuses.push(res.status);
      if (res.status === 429) expectRefused(res, 'shared');
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

    const other = await call(edgeB.base, '/api/v9/webhooks/222/the-token/slack', { json: { text: 'hi' }, dispatcher: newAddress() });
    const otherToken = await call(edgeB.base, '/api/v9/webhooks/111/another-token', { json: { content: 'hi' }, dispatcher: newAddress() });
    expect(other.status).toBe(200);
    expect(otherToken.status).toBe(200);
  });
});

describe('the invalid-request limit', () => {
  it('when an address makes more invalid requests than allowed, then it is refused everything, on every replica, and others are not', async () => {
    const strict = {
      RATE_LIMITS_SCALE: '1',
      REDIS_PREFIX: `${unique('gw')}:`,
      RATE_LIMIT_OVERRIDES: JSON.stringify({ invalid: { limit: 20 } }),
    };
    const [one, two] = [await startTestGateway(under, strict), await startTestGateway(under, strict)];
    try {
      const user = await registerUser(setup.base);
      const attacker = newAddress();
      for (let i = 0; i < 20; i++)
        expect((await call(one.base, '/api/v9/users/@me', { authorization: `garbage-${i}`, dispatcher: attacker })).status).toBe(401);
      // The 21st is counted once its answer is out: the block holds from the next request on.
      const statuses: number[] = [];
      for (let i = 0; i < 40 && statuses.at(-1) !== 429; i++)
        statuses.push((await call(one.base, '/api/v9/users/@me', { authorization: 'garbage-more', dispatcher: attacker })).status);
      expect(statuses.at(-1)).toBe(429);

      const blocked = await call(one.base, '/api/v9/users/@me', { token: user.token, dispatcher: attacker });
      expectRefused(blocked, 'global');
      // The other replica learns of the block from Redis at the address's next invalid request.
      const there: number[] = [];
      for (let i = 0; i < 40 && there.at(-1) !== 429; i++)
        there.push((await call(two.base, '/api/v9/users/@me', { authorization: 'garbage', dispatcher: attacker })).status);
      expect(there.at(-1)).toBe(429);
      expectRefused(await call(two.base, '/api/v9/users/@me', { token: user.token, dispatcher: attacker }), 'global');
      expect((await call(two.base, '/api/v9/users/@me', { token: user.token, dispatcher: newAddress() })).status).toBe(200);
    } finally {
      await stopAll(one.closers, two.closers);
    }
  });
});

describe('when Redis is out of reach', () => {
  it('then requests are still served and limited, each replica counting alone', async () => {
    const lonely = await startTestGateway(under, { RATE_LIMITS_SCALE: '1', REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    try {
      const user = await registerUser(setup.base);
      const me = await call(lonely.base, '/api/v9/users/@me', { token: user.token, dispatcher: newAddress() });
      expect(me.status).toBe(200);
      expectRateHeaders(me, 50);
      const address = newAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++)
        statuses.push(
          (
            await call(lonely.base, '/api/v9/unique-username/username-attempt-unauthed', {
              json: { username: unique('n') },
              dispatcher: address,
            })
          ).status,
        );
      expect(statuses.slice(10)).toEqual([429, 429]);
    } finally {
      await stopAll(lonely.closers);
    }
  });
});
