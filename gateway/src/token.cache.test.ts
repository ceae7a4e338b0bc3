import { describe, expect, it } from 'vitest';
import { TokenCache, type TokenOwner } from './token.cache.js';

/** A validate function whose answers the test controls, counting the lookups it was asked for. */
class FakeAuth {
  readonly calls: { token: string; clientIp: string }[] = [];
  readonly owners = new Map<string, TokenOwner | null>();
  private held: { resolve(): void }[] = [];
  hold = false;

  validate = (token: string, clientIp: string): Promise<TokenOwner | null> => {
    this.calls.push({ token, clientIp });
    const answer = () => this.owners.get(token) ?? null;
    if (!this.hold) return Promise.resolve(answer());
    return new Promise((resolve) => this.held.push({ resolve: () => resolve(answer()) }));
  };

  /** Answers every lookup held so far with what `owners` says now. */
  release(): void {
    const held = this.held;
    this.held = [];
    for (const h of held) h.resolve();
  }
}

/** A cache whose revocation feed is down (as it starts) unless `feedUp()` is called. */
function setup(ttlMs = 1000, maxEntries = 100, feedTtlMs = 60_000) {
  const auth = new FakeAuth();
  const clock = { now: 0 };
  const cache = new TokenCache(auth.validate, { ttlMs, feedTtlMs, maxEntries }, () => clock.now);
  return { auth, clock, cache };
}

const alice: TokenOwner = { userId: '100', sessionId: 's-alice', bot: false };
const bob: TokenOwner = { userId: '200', sessionId: 's-bob', bot: false };
const carol: TokenOwner = { userId: '300', sessionId: 's-carol', bot: false };

describe('TokenCache', () => {
  it('when a token was validated, then it is answered from the cache until the ttl has passed', async () => {
    const { auth, clock, cache } = setup(1000);
    auth.owners.set('tok-a', alice);

    expect(await cache.resolve('tok-a', '10.0.0.1')).toEqual(alice);
    clock.now = 999;
    expect(await cache.resolve('tok-a', '10.0.0.1')).toEqual(alice);
    expect(auth.calls).toHaveLength(1);

    clock.now = 1000;
    expect(await cache.resolve('tok-a', '10.0.0.1')).toEqual(alice);
    expect(auth.calls).toHaveLength(2);
  });

  it('when auth calls a token invalid, then the refusal is remembered for the ttl too', async () => {
    const { auth, clock, cache } = setup(1000);

    expect(await cache.resolve('garbage', '10.0.0.1')).toBeNull();
    expect(await cache.resolve('garbage', '10.0.0.1')).toBeNull();
    expect(auth.calls).toHaveLength(1);
    clock.now = 1000;
    expect(await cache.resolve('garbage', '10.0.0.1')).toBeNull();
    expect(auth.calls).toHaveLength(2);
  });

  it('when auth is asked, then it gets the raw token and the client address', async () => {
    const { auth, cache } = setup();
    auth.owners.set('tok-a', alice);

    await cache.resolve('tok-a', '203.0.113.5');

    expect(auth.calls).toEqual([{ token: 'tok-a', clientIp: '203.0.113.5' }]);
  });

  it('when requests with one token arrive together, then they share one lookup', async () => {
    const { auth, cache } = setup();
    auth.owners.set('tok-a', alice);
    auth.hold = true;

    const answers = Promise.all([cache.resolve('tok-a', '1.1.1.1'), cache.resolve('tok-a', '1.1.1.1'), cache.resolve('tok-a', '1.1.1.1')]);
    auth.release();

    expect(await answers).toEqual([alice, alice, alice]);
    expect(auth.calls).toHaveLength(1);
  });

  it('when requests with different tokens arrive together, then each token gets its own lookup', async () => {
    const { auth, cache } = setup();
    auth.owners.set('tok-a', alice).set('tok-b', bob);
    auth.hold = true;

    const answers = Promise.all([cache.resolve('tok-a', '1.1.1.1'), cache.resolve('tok-b', '1.1.1.1')]);
    auth.release();

    expect(await answers).toEqual([alice, bob]);
    expect(auth.calls).toHaveLength(2);
  });

  it('when a cached session is revoked, then its token is asked about again at once, before the ttl', async () => {
    const { auth, cache } = setup(1000);
    auth.owners.set('tok-a', alice).set('tok-b', bob);
    await cache.resolve('tok-a', '1.1.1.1');
    await cache.resolve('tok-b', '1.1.1.1');
    auth.owners.set('tok-a', null);

    cache.revoke([alice.sessionId]);

    expect(await cache.resolve('tok-a', '1.1.1.1')).toBeNull();
    expect(await cache.resolve('tok-b', '1.1.1.1')).toEqual(bob);
    expect(auth.calls.map((c) => c.token)).toEqual(['tok-a', 'tok-b', 'tok-a']);
  });

  it('when a session is revoked while its lookup is in flight, then the answer is refused and not cached', async () => {
    const { auth, cache } = setup(1000);
    auth.owners.set('tok-a', alice);
    auth.hold = true;

    const racing = cache.resolve('tok-a', '1.1.1.1');
    const sharing = cache.resolve('tok-a', '1.1.1.1');
    cache.revoke([alice.sessionId]);
    // auth read the session before the revocation committed: it still calls the token valid.
    auth.release();

    expect(await racing).toBeNull();
    expect(await sharing).toBeNull();
    expect(cache.size).toBe(0);

    auth.hold = false;
    auth.owners.set('tok-a', null);
    expect(await cache.resolve('tok-a', '1.1.1.1')).toBeNull();
    expect(auth.calls).toHaveLength(2);
  });

  it('when a session was revoked moments ago and auth still answers it valid, then it is refused', async () => {
    const { auth, clock, cache } = setup(1000);
    auth.owners.set('tok-a', alice);

    cache.revoke([alice.sessionId]);
    clock.now = 1500;

    expect(await cache.resolve('tok-a', '1.1.1.1')).toBeNull();
  });

  it('when a lookup fails, then the failure reaches the caller and nothing is cached', async () => {
    let fail = true;
    const cache = new TokenCache(
      async () => {
        if (fail) throw new Error('auth unavailable');
        return alice;
      },
      { ttlMs: 1000, feedTtlMs: 60_000, maxEntries: 100 },
      () => 0,
    );

    await expect(cache.resolve('tok-a', '1.1.1.1')).rejects.toThrow('auth unavailable');
    expect(cache.size).toBe(0);
    fail = false;
    expect(await cache.resolve('tok-a', '1.1.1.1')).toEqual(alice);
  });

  it('when the cache is full of live entries, then the oldest is dropped to stay within the bound', async () => {
    const { auth, cache } = setup(1000, 2);
    auth.owners.set('tok-a', alice).set('tok-b', bob).set('tok-c', carol);

    await cache.resolve('tok-a', '1.1.1.1');
    await cache.resolve('tok-b', '1.1.1.1');
    await cache.resolve('tok-c', '1.1.1.1');
    expect(cache.size).toBe(2);

    await cache.resolve('tok-c', '1.1.1.1');
    await cache.resolve('tok-b', '1.1.1.1');
    expect(auth.calls.map((c) => c.token)).toEqual(['tok-a', 'tok-b', 'tok-c']);
    await cache.resolve('tok-a', '1.1.1.1');
    expect(auth.calls.map((c) => c.token)).toEqual(['tok-a', 'tok-b', 'tok-c', 'tok-a']);
    expect(cache.size).toBe(2);
  });

  it('when the cache is full and entries have expired, then the expired ones go first', async () => {
    const { auth, clock, cache } = setup(1000, 2);
    auth.owners.set('tok-a', alice).set('tok-b', bob).set('tok-c', carol);
    await cache.resolve('tok-a', '1.1.1.1');
    await cache.resolve('tok-b', '1.1.1.1');

    clock.now = 5000;
    await cache.resolve('tok-c', '1.1.1.1');

    expect(cache.size).toBe(1);
  });

  it('when entries are dropped for room, then the session index is bounded with them', async () => {
    const { auth, cache } = setup(1000, 3);
    for (let i = 0; i < 50; i++) {
      auth.owners.set(`tok-${i}`, { userId: String(i), sessionId: `s-${i}`, bot: false });
      await cache.resolve(`tok-${i}`, '1.1.1.1');
    }

    expect(cache.size).toBe(3);
    // The index behind revoke() must not grow past the entries it points at.
    expect(cache['keysBySession'].size).toBeLessThanOrEqual(3);
  });

  it('when the ttl is 0, then nothing is cached and every request asks auth', async () => {
    const { auth, cache } = setup(0);
    auth.owners.set('tok-a', alice);

    expect(await cache.resolve('tok-a', '1.1.1.1')).toEqual(alice);
    expect(await cache.resolve('tok-a', '1.1.1.1')).toEqual(alice);

    expect(auth.calls).toHaveLength(2);
    expect(cache.size).toBe(0);
  });

  it('when the ttl is 0 and requests arrive together, then they still share the lookup in flight', async () => {
    const { auth, cache } = setup(0);
    auth.owners.set('tok-a', alice);
    auth.hold = true;

    const answers = Promise.all([cache.resolve('tok-a', '1.1.1.1'), cache.resolve('tok-a', '1.1.1.1')]);
    auth.release();

    expect(await answers).toEqual([alice, alice]);
    expect(auth.calls).toHaveLength(1);
  });
});

describe('TokenCache with the revocation feed', () => {
  it('when the feed is live, then a valid answer is trusted for the feed ttl', async () => {
    const { auth, clock, cache } = setup(1000, 100, 60_000);
    auth.owners.set('tok-a', alice);
    cache.feedUp();

    await cache.resolve('tok-a', '1.1.1.1');
    clock.now = 59_999;
    expect(await cache.resolve('tok-a', '1.1.1.1')).toEqual(alice);
    expect(auth.calls).toHaveLength(1);

    clock.now = 60_000;
    await cache.resolve('tok-a', '1.1.1.1');
    expect(auth.calls).toHaveLength(2);
  });

  it('when the feed is live and a long-lived entry’s session is revoked, then its token is asked about again at once', async () => {
    const { auth, clock, cache } = setup(1000, 100, 60_000);
    auth.owners.set('tok-a', alice);
    cache.feedUp();
    await cache.resolve('tok-a', '1.1.1.1');
    clock.now = 5000;
    auth.owners.set('tok-a', null);

    cache.revoke([alice.sessionId]);

    expect(await cache.resolve('tok-a', '1.1.1.1')).toBeNull();
    expect(auth.calls).toHaveLength(2);
  });

  it('when the feed is live, then a refusal is still kept only for the short ttl', async () => {
    const { auth, clock, cache } = setup(1000, 100, 60_000);
    cache.feedUp();

    await cache.resolve('garbage', '1.1.1.1');
    clock.now = 1000;
    await cache.resolve('garbage', '1.1.1.1');

    expect(auth.calls).toHaveLength(2);
  });

  it('when the feed is lost, then every entry is dropped and answers are kept for the short ttl until it is back', async () => {
    const { auth, clock, cache } = setup(1000, 100, 60_000);
    auth.owners.set('tok-a', alice).set('tok-b', bob);
    cache.feedUp();
    await cache.resolve('tok-a', '1.1.1.1');
    await cache.resolve('tok-b', '1.1.1.1');

    cache.feedDown();
    expect(cache.size).toBe(0);
    expect(cache.feedIsLive).toBe(false);

    await cache.resolve('tok-a', '1.1.1.1');
    expect(auth.calls).toHaveLength(3);
    clock.now = 1000;
    await cache.resolve('tok-a', '1.1.1.1');
    expect(auth.calls).toHaveLength(4);

    cache.feedUp();
    clock.now = 2000;
    await cache.resolve('tok-a', '1.1.1.1');
    clock.now = 30_000;
    await cache.resolve('tok-a', '1.1.1.1');
    expect(auth.calls).toHaveLength(5);
  });

  it('when the feed is lost and back while a lookup is in flight, then its answer gets only the short ttl', async () => {
    const { auth, clock, cache } = setup(1000, 100, 60_000);
    auth.owners.set('tok-a', alice);
    cache.feedUp();
    auth.hold = true;

    const racing = cache.resolve('tok-a', '1.1.1.1');
    // While the edge was deaf the session may have been revoked, after auth had read it.
    cache.feedDown();
    cache.feedUp();
    auth.release();
    expect(await racing).toEqual(alice);

    auth.hold = false;
    clock.now = 1000;
    await cache.resolve('tok-a', '1.1.1.1');
    expect(auth.calls).toHaveLength(2);
  });

  it('when the feed comes up while a lookup is in flight, then its answer gets only the short ttl', async () => {
    const { auth, clock, cache } = setup(1000, 100, 60_000);
    auth.owners.set('tok-a', alice);
    auth.hold = true;

    const racing = cache.resolve('tok-a', '1.1.1.1');
    cache.feedUp();
    auth.release();
    await racing;

    auth.hold = false;
    clock.now = 1000;
    await cache.resolve('tok-a', '1.1.1.1');
    expect(auth.calls).toHaveLength(2);
  });

  it('when the short ttl is 0, then nothing is cached even with the feed live', async () => {
    const { auth, cache } = setup(0, 100, 60_000);
    auth.owners.set('tok-a', alice);
    cache.feedUp();

    await cache.resolve('tok-a', '1.1.1.1');
    await cache.resolve('tok-a', '1.1.1.1');

    expect(auth.calls).toHaveLength(2);
    expect(cache.size).toBe(0);
  });
});
