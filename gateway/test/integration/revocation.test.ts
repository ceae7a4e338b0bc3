import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, databaseUrl, sql, type Kysely } from '@kith/platform';
import {
  AUTH_DATABASE,
  call,
  feedLive,
  login,
  registerUser,
  startTestAuth,
  startTestGateway,
  stopAll,
  type AuthUnderTest,
} from './harness.js';

/** The gateway's default TTLs: without and with a live revocation feed. */
const TTL_MS = 800;
const FEED_TTL_MS = 60_000;
const POLL_EVERY_MS = 10;

let under: AuthUnderTest;
/** Trusts a valid answer for a minute while the revocation feed is live: the default. */
let cached: Awaited<ReturnType<typeof startTestGateway>>;
/** A second replica without a cache: a logout sent through it reaches `cached` only as an event. */
let uncached: Awaited<ReturnType<typeof startTestGateway>>;
/** A replica that never trusts an answer longer than the short TTL, feed or not. */
let shortOnly: Awaited<ReturnType<typeof startTestGateway>>;
let authDb: Kysely<unknown>;

beforeAll(async () => {
  under = await startTestAuth();
  cached = await startTestGateway(under, { AUTH_CACHE_TTL_MS: String(TTL_MS), AUTH_CACHE_FEED_TTL_MS: String(FEED_TTL_MS) });
  uncached = await startTestGateway(under, { AUTH_CACHE_TTL_MS: '0' });
  shortOnly = await startTestGateway(under, { AUTH_CACHE_TTL_MS: String(TTL_MS), AUTH_CACHE_FEED_TTL_MS: String(TTL_MS) });
  await feedLive(cached);
  await feedLive(shortOnly);
  authDb = createDatabase({ url: databaseUrl(under.stores.DATABASE_URL, AUTH_DATABASE), maxConnections: 2 });
});

afterAll(async () => {
  await stopAll(cached?.closers, uncached?.closers, shortOnly?.closers, under?.auth.closers);
  await authDb?.destroy();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks for /users/@me with the token every 10 ms until it is refused (the test's timeout bounds the
 * wait); the ms from `since` to the first 401 (measured, for the log) and how many 200s came first.
 */
async function pollUntilRefused(base: string, token: string, since: number) {
  let stale = 0;
  for (;;) {
    const res = await call(base, '/api/v9/users/@me', { token });
    if (res.status === 401) return { ms: performance.now() - since, stale, body: res.body };
    expect(res.status).toBe(200);
    stale++;
    await sleep(POLL_EVERY_MS);
  }
}

/** A user with two sessions: `other` (from register, the one to revoke) and `current` (from login), and other's id_hash. */
async function userWithTwoSessions(base: string) {
  const user = await registerUser(base);
  // With one session only, the list names exactly the session to revoke later.
  const listed = await call<{ user_sessions: { id_hash: string }[] }>(base, '/api/v9/auth/sessions', { token: user.token });
  expect(listed.status).toBe(200);
  expect(listed.body.user_sessions).toHaveLength(1);
  const { token, userId } = await login(base, user);
  return { other: user.token, current: token, userId, otherHash: listed.body.user_sessions[0]!.id_hash };
}

/** The ids of all the user's sessions, as auth's revocation events name them. */
async function sessionIdsOf(userId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM sessions WHERE user_id = ${userId}`.execute(authDb);
  return rows.map((r) => r.id);
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `min ${sorted[0]!.toFixed(1)} ms, median ${median.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (n=${sorted.length})`;
}

describe('a revoked session through the gateway', () => {
  it('when a session is logged out by hash, then the very next request with its token is refused 401', async () => {
    const { other, current, otherHash } = await userWithTwoSessions(cached.base);
    expect((await call(cached.base, '/api/v9/users/@me', { token: other })).status).toBe(200);

    const logout = await call(cached.base, '/api/v9/auth/sessions/logout', { token: current, json: { session_id_hashes: [otherHash] } });
    const next = await call(cached.base, '/api/v9/users/@me', { token: other });

    expect(logout.status).toBe(204);
    expect(next.status).toBe(401);
    expect(next.body).toEqual({ code: 0, message: '401: Unauthorized' });
    // Only the named session ended: the caller's own still works.
    expect((await call(cached.base, '/api/v9/users/@me', { token: current })).status).toBe(200);
  });

  it('when a cached session is logged out by hash, then the same edge refuses it at once and another replica as soon as the event arrives, long before its cache entry would lapse (measured)', async () => {
    const rounds = { sameEdge: [] as number[], otherReplica: [] as number[] };
    const staleOnReplica: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const via of ['sameEdge', 'otherReplica'] as const) {
        const { other, current, otherHash } = await userWithTwoSessions(cached.base);
        // Warm the edge's cache with the token about to be revoked, so the cache is what is tested.
        expect((await call(cached.base, '/api/v9/users/@me', { token: other })).status).toBe(200);
        expect(cached.tokens.size).toBeGreaterThan(0);
        // Past the short TTL the entry is still trusted (auth is not asked): the feed's long TTL is in play.
        const lookups = cached.tokens.lookups;
        await sleep(TTL_MS + 100);
        expect((await call(cached.base, '/api/v9/users/@me', { token: other })).status).toBe(200);
        expect(cached.tokens.lookups).toBe(lookups);

        // Through another replica, only auth's session-revoked event over NATS can evict it here.
        const logoutBase = via === 'sameEdge' ? cached.base : uncached.base;
        const logout = await call(logoutBase, '/api/v9/auth/sessions/logout', { token: current, json: { session_id_hashes: [otherHash] } });
        const after204 = performance.now();
        expect(logout.status).toBe(204);
        const { ms, stale } = await pollUntilRefused(cached.base, other, after204);

        if (via === 'sameEdge') expect(stale).toBe(0);
        else staleOnReplica.push(stale);
        rounds[via].push(ms);
      }
    }
    console.log(
      `[gateway] revocation of an entry older than AUTH_CACHE_TTL_MS=${TTL_MS} (AUTH_CACHE_FEED_TTL_MS=${FEED_TTL_MS}, feed live), ` +
        `polling every ${POLL_EVERY_MS} ms, logout 204 → first 401:\n` +
        `  logout through the same edge: ${summary(rounds.sameEdge)}\n` +
        `  logout through another replica (NATS event only): ${summary(rounds.otherReplica)}; stale 200s: ${staleOnReplica.join(', ')}`,
    );

    // Through the other replica only auth's event can have evicted the entry: the cache would have
    // trusted it for AUTH_CACHE_FEED_TTL_MS (60 s, twice the test's whole timeout).
    expect(rounds.otherReplica).toHaveLength(5);
  });

  it('when the feed ttl is off and a session is revoked behind the edge’s back, then once the short ttl has passed its cached token is refused', async () => {
    const rounds: { ms: number; stale: number }[] = [];
    for (let round = 0; round < 3; round++) {
      const { other, userId } = await userWithTwoSessions(shortOnly.base);
      // Let setup's cached answer lapse, so the next request stores a fresh one: the worst case.
      await sleep(TTL_MS + 50);
      expect((await call(shortOnly.base, '/api/v9/users/@me', { token: other })).status).toBe(200);
      // The answer was stored before this line: it lapses at most TTL_MS from here.
      const stored = performance.now();

      // Straight in auth's database: no session-revoked event reaches the edge.
      await sql`UPDATE sessions SET revoked_at = now() WHERE user_id = ${userId}`.execute(authDb);
      const revoked = performance.now();
      const { ms, stale } = await pollUntilRefused(shortOnly.base, other, revoked);
      rounds.push({ ms, stale });

      // Timers never fire early: past the TTL, the very next request is checked again, and refused.
      await sleep(Math.max(0, stored + TTL_MS + 1 - performance.now()));
      expect((await call(shortOnly.base, '/api/v9/users/@me', { token: other })).status).toBe(401);
    }
    console.log(
      `[gateway] revocation the edge never hears of (database only), AUTH_CACHE_TTL_MS=${TTL_MS}, no feed TTL: ` +
        `revoke → first 401: ${summary(rounds.map((r) => r.ms))}; ` +
        `stale 200s per round: ${rounds.map((r) => r.stale).join(', ')}`,
    );
  });

  it('when the feed is live and a session is revoked behind the edge’s back, then its cached token is still trusted (no event, no eviction)', async () => {
    // The deliberate trade of the feed TTL: only revocations auth announces evict; every way auth ends a session does.
    const { other, userId } = await userWithTwoSessions(cached.base);
    expect((await call(cached.base, '/api/v9/users/@me', { token: other })).status).toBe(200);
    const lookups = cached.tokens.lookups;

    await sql`UPDATE sessions SET revoked_at = now() WHERE user_id = ${userId}`.execute(authDb);
    await sleep(TTL_MS + 100);

    expect((await call(cached.base, '/api/v9/users/@me', { token: other })).status).toBe(200);
    expect(cached.tokens.lookups).toBe(lookups);
    // An announced revocation still evicts it.
    cached.tokens.revoke(await sessionIdsOf(userId));
    expect((await call(cached.base, '/api/v9/users/@me', { token: other })).status).toBe(401);
  });

  it('when the cache is off and a session is revoked behind the edge’s back, then the next request is refused', async () => {
    const { other, userId } = await userWithTwoSessions(uncached.base);
    expect((await call(uncached.base, '/api/v9/users/@me', { token: other })).status).toBe(200);

    await sql`UPDATE sessions SET revoked_at = now() WHERE user_id = ${userId}`.execute(authDb);
    const next = await call(uncached.base, '/api/v9/users/@me', { token: other });

    expect(next.status).toBe(401);
    expect(uncached.tokens.size).toBe(0);
  });

  it('when a user logs out their own session, then that token is refused on its next request', async () => {
    const { other, current } = await userWithTwoSessions(cached.base);
    expect((await call(cached.base, '/api/v9/users/@me', { token: current })).status).toBe(200);

    const logout = await call(cached.base, '/api/v9/auth/logout', { token: current, json: {} });
    const next = await call(cached.base, '/api/v9/users/@me', { token: current });

    expect(logout.status).toBe(204);
    expect(next.status).toBe(401);
    expect((await call(cached.base, '/api/v9/users/@me', { token: other })).status).toBe(200);
  });
});
