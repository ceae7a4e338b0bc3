import { describe, expect, it } from 'vitest';
import { LoginLimits } from './login-limits.js';
import type { Windows } from './ports.js';
import { RateLimitedError } from './registration/rate-limit.js';

/** In-memory fixed windows that never expire (the tests stay inside one window). */
function memoryWindows(): Windows & { keys: () => string[] } {
  const counts = new Map<string, number>();
  return {
    peek: (key) => Promise.resolve({ count: counts.get(key) ?? 0, resetAfterMs: 1234 }),
    hit: (key) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return Promise.resolve({ count: counts.get(key) ?? 0, resetAfterMs: 1234 });
    },
    keys: () => [...counts.keys()],
  };
}

const options = { perAccount: 2, perIp: 3, windowMs: 60_000 };

describe('LoginLimits', () => {
  it('when a login string has its failures spent, then check throws RateLimitedError for it only', async () => {
    const limits = new LoginLimits(memoryWindows(), options);
    await limits.fail('Alice@Example.com', '10.0.0.1');
    await limits.fail('alice@example.com ', '10.0.0.2');
    const error = (await limits.check('ALICE@example.com', '10.0.0.3').catch((e: unknown) => e)) as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.rule).toBe(limits.account);
    expect(error.retryAfterMs).toBe(1234);
    await expect(limits.check('bob@example.com', '10.0.0.3')).resolves.toBeUndefined();
  });

  it('when an address has its failures spent, then every login from it is refused', async () => {
    const limits = new LoginLimits(memoryWindows(), options);
    for (const login of ['a@x.io', 'b@x.io', 'c@x.io']) await limits.fail(login, '10.0.0.9');
    const error = (await limits.check('d@x.io', '10.0.0.9').catch((e: unknown) => e)) as RateLimitedError;
    expect(error.rule).toBe(limits.ip);
    await expect(limits.check('d@x.io', '10.0.0.8')).resolves.toBeUndefined();
  });

  it('when counting, then keys hold hashes, never the login or the address', async () => {
    const windows = memoryWindows();
    await new LoginLimits(windows, options).fail('alice@example.com', '10.0.0.1');
    expect(windows.keys().join()).not.toMatch(/alice|10\.0\.0\.1/);
  });
});
