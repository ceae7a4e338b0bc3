import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestNatsServer, testDbPrefix } from '@kith/platform/testing';
import { call, feedLive, login, registerUser, startTestAuth, startTestGateway, stopAll, type AuthUnderTest } from './harness.js';

/**
 * The edge's revocation feed against a nats-server this file owns, so it can be killed and brought
 * back. auth uses a database prefix of its own: its outbox relay must publish to this server, not
 * race another file's auth (on the shared server) for the same outbox.
 */
const TTL_MS = 800;
const FEED_TTL_MS = 60_000;

let nats: TestNatsServer;
let under: AuthUnderTest;
let cached: Awaited<ReturnType<typeof startTestGateway>>;
/** Without a cache: a logout through it reaches `cached` only as auth's event over NATS. */
let uncached: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  nats = await TestNatsServer.start();
  under = await startTestAuth({ NATS_URL: nats.url, DB_PREFIX: testDbPrefix('gwfeed') });
  cached = await startTestGateway(under, { AUTH_CACHE_TTL_MS: String(TTL_MS), AUTH_CACHE_FEED_TTL_MS: String(FEED_TTL_MS) });
  uncached = await startTestGateway(under, { AUTH_CACHE_TTL_MS: '0' });
  await feedLive(cached);
});

afterAll(async () => {
  await stopAll(cached?.closers, uncached?.closers, under?.auth.closers);
  await nats?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for a condition the edge reaches by itself (an event, a status change). */
async function until(what: string, condition: () => boolean, giveUpMs = 10_000): Promise<void> {
  const since = performance.now();
  while (!condition()) {
    if (performance.now() - since > giveUpMs) throw new Error(`${what}: not after ${giveUpMs} ms`);
    await sleep(10);
  }
}

/** A user with two sessions: `registered` (to be logged out by its hash `otherHash`) and `current`. */
async function userWithTwoSessions() {
  const user = await registerUser(cached.base);
  // With one session only, the list names exactly the session to log out later.
  const listed = await call<{ user_sessions: { id_hash: string }[] }>(cached.base, '/api/v9/auth/sessions', { token: user.token });
  expect(listed.body.user_sessions).toHaveLength(1);
  const { token } = await login(cached.base, user);
  return { registered: user.token, current: token, otherHash: listed.body.user_sessions[0]!.id_hash };
}

const me = (token: string) => call(cached.base, '/api/v9/users/@me', { token });

describe('the gateway’s token cache and its revocation feed', () => {
  it('when the feed is live, then a long-lived entry is evicted by auth’s NATS event and its token refused', async () => {
    const user = await registerUser(cached.base);
    const second = await login(cached.base, user);
    expect((await me(user.token)).status).toBe(200);
    const lookups = cached.tokens.lookups;
    await sleep(TTL_MS + 100);
    expect((await me(user.token)).status).toBe(200);
    expect(cached.tokens.lookups).toBe(lookups);

    // Through the replica without a cache: only the event can tell `cached`.
    const logout = await call(uncached.base, '/api/v9/auth/logout', { token: user.token, json: {} });
    expect(logout.status).toBe(204);
    let answer = await me(user.token);
    for (let polls = 0; answer.status === 200 && polls < 300; polls++) {
      await sleep(10);
      answer = await me(user.token);
    }
    expect(answer.status).toBe(401);
    expect((await me(second.token)).status).toBe(200);
  });

  it('when NATS goes away, then the cache is dropped, answers keep the short ttl until the feed is back, then the long one', async () => {
    const user = await registerUser(cached.base);
    expect((await me(user.token)).status).toBe(200);
    expect(cached.tokens.size).toBeGreaterThan(0);

    await nats.kill();
    await until('the feed is lost', () => !cached.tokens.feedIsLive);
    expect(cached.tokens.size).toBe(0);

    // auth still answers over gRPC; each answer is trusted for the short TTL only.
    const before = cached.tokens.lookups;
    expect((await me(user.token)).status).toBe(200);
    expect(cached.tokens.lookups).toBe(before + 1);
    await sleep(TTL_MS + 100);
    expect((await me(user.token)).status).toBe(200);
    expect(cached.tokens.lookups).toBe(before + 2);

    await nats.restart();
    await feedLive(cached, 20_000);
    // Let the answer cached during the outage lapse: the next one is looked up with the feed live.
    await sleep(TTL_MS + 100);
    expect((await me(user.token)).status).toBe(200);
    const afterBack = cached.tokens.lookups;
    await sleep(TTL_MS + 100);
    expect((await me(user.token)).status).toBe(200);
    expect(cached.tokens.lookups).toBe(afterBack);
  });

  it('when NATS is down, then a logout through the same edge still refuses the token on its next request', async () => {
    const { registered, current, otherHash } = await userWithTwoSessions();
    expect((await me(registered)).status).toBe(200);
    await nats.kill();
    await until('the feed is lost', () => !cached.tokens.feedIsLive);
    try {
      expect((await me(registered)).status).toBe(200);
      const logout = await call(cached.base, '/api/v9/auth/sessions/logout', { token: current, json: { session_id_hashes: [otherHash] } });
      expect(logout.status).toBe(204);
      expect((await me(registered)).status).toBe(401);
      expect((await me(current)).status).toBe(200);
    } finally {
      await nats.restart();
      await feedLive(cached, 20_000);
    }
  });

  it('when the server stops answering without dropping the connection, then the feed is lost all the same and back once it answers', async () => {
    const user = await registerUser(cached.base);
    expect((await me(user.token)).status).toBe(200);
    expect(cached.tokens.size).toBeGreaterThan(0);
    // A frozen server keeps its sockets open: no disconnect is reported, only PINGs go unanswered.
    const pid = nats['process']!.pid!;

    process.kill(pid, 'SIGSTOP');
    try {
      await until('the feed is lost', () => !cached.tokens.feedIsLive);
      expect(cached.tokens.size).toBe(0);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await feedLive(cached, 20_000);
    expect((await me(user.token)).status).toBe(200);
  });
});
