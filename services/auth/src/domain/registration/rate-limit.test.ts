import { describe, expect, it } from 'vitest';
import { RateLimitedError, RateLimiter } from './rate-limit.js';

describe('RateLimiter', () => {
  const rule = { name: 'test', limit: 2, windowMs: 1000 };

  it('when a subject stays within the limit, then nothing is thrown; past it, the window left is reported', async () => {
    let count = 0;
    const limiter = new RateLimiter({ hit: () => Promise.resolve({ count: ++count, resetAfterMs: 750 }) });
    await limiter.consume(rule, 'a');
    await limiter.consume(rule, 'a');
    const error = await limiter.consume(rule, 'a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(750);
    expect((error as RateLimitedError).bucket).toMatch(/^[0-9a-f]{32}$/);
  });

  it('when counting, then the subject is hashed in the key, never stored as given', async () => {
    const keys: string[] = [];
    const limiter = new RateLimiter({
      hit: (key) => {
        keys.push(key);
        return Promise.resolve({ count: 1, resetAfterMs: 1 });
      },
    });
    await limiter.consume(rule, '+14155550123');
    expect(keys[0]).toMatch(/^rl:test:[A-Za-z0-9_-]{22}$/);
    expect(keys[0]).not.toContain('4155550123');
  });
});
