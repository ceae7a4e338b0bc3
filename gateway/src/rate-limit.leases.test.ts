import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { LeasedLimiter, type Count } from './rate-limit.leases.js';

const never = (): void => {
  throw new Error('the limiter was not expected to fail');
};

describe('LeasedLimiter over rate-limiter-flexible', () => {
  it('when requests come one by one, then each is counted and the one past the limit is refused until the window ends', async () => {
    const memory = new RateLimiterMemory({ points: 3, duration: 60 });
    let takes = 0;
    const consume = memory.consume.bind(memory);
    memory.consume = (key, points) => (takes++, consume(key, points));
    const leased = new LeasedLimiter(memory, 3, 60, 1, never);
    const counts: Count[] = [];
    for (let i = 0; i < 5; i++) counts.push(await leased.count('k'));

    expect(counts.map((c) => [c.allowed, c.consumed])).toEqual([
      [true, 1],
      [true, 2],
      [true, 3],
      [false, 4],
      [false, 4],
    ]);
    for (const c of counts) expect(c.msBeforeNext).toBeGreaterThan(0);
    // The third took the last point: from then on the replica refuses by itself until the window ends.
    expect(takes).toBe(3);
    expect((await leased.count('other')).allowed).toBe(true);
  });

  it('when 30 requests of one key arrive at once, then those waiting share takes, exactly the limit passes, and the store is asked a few times only', async () => {
    const memory = new RateLimiterMemory({ points: 10, duration: 60 });
    let takes = 0;
    const consume = memory.consume.bind(memory);
    memory.consume = (key, points) => (takes++, consume(key, points));
    const leased = new LeasedLimiter(memory, 10, 60, 1, never);

    const counts = await Promise.all(Array.from({ length: 30 }, () => leased.count('k')));

    expect(counts.filter((c) => c.allowed)).toHaveLength(10);
    expect(
      counts
        .filter((c) => c.allowed)
        .map((c) => c.consumed)
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(takes).toBeLessThanOrEqual(2);
  });

  it('when a key was busy in its last window, then this window takes its points five at a time, every take of it', async () => {
    const memory = new RateLimiterMemory({ points: 50, duration: 1 });
    const sizes: number[] = [];
    const consume = memory.consume.bind(memory);
    memory.consume = (key, points) => (sizes.push(points ?? 1), consume(key, points));
    const leased = new LeasedLimiter(memory, 50, 1, 5, never);
    let last: Count | undefined;
    for (let i = 0; i < 20; i++) last = await leased.count('k');
    // Counted one by one while nothing was known of the key; then its window ends.
    expect(sizes).toEqual(Array(20).fill(1));
    await new Promise((resolve) => setTimeout(resolve, last!.msBeforeNext + 20));

    sizes.length = 0;
    const counts: Count[] = [];
    for (let i = 0; i < 20; i++) counts.push(await leased.count('k'));

    expect(sizes).toEqual([5, 5, 5, 5]);
    expect(counts.map((c) => c.consumed)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('when neither Redis nor an insurance can count, then the requests pass and the failure is reported', async () => {
    const redis = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    try {
      const limiter = new RateLimiterRedis({ storeClient: redis, points: 1, duration: 1, rejectIfRedisNotReady: true });
      const failures: unknown[] = [];
      const leased = new LeasedLimiter(limiter, 1, 1, 1, (err) => failures.push(err));

      const counts = await Promise.all([leased.count('k'), leased.count('k'), leased.count('k')]);

      expect(counts.every((c) => c.allowed)).toBe(true);
      expect(failures.length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});
