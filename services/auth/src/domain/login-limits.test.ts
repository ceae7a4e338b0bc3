import { describe, expect, it } from 'vitest';
import { MemoryBackoffs, MemoryWindows } from '../../test/fakes/tickets.fake.js';
import { userRow } from '../../test/fakes/users.fake.js';
import { LoginLimits, type LoginLimitOptions } from './login-limits.js';
import type { KnownSources, UserRow } from './ports.js';
import { RateLimitedError } from './registration/rate-limit.js';

const OPTIONS: LoginLimitOptions = { perIp: 50, ipWindowMs: 60_000, perSource: 2, perAccount: 4, baseDelayMs: 1000, maxDelayMs: 8000 };
const OWNER_HOME = '198.51.100.7';

class MemoryKnownSources implements KnownSources {
  readonly sources = new Map<string, Set<string>>();
  knows(userId: string, source: string) {
    return Promise.resolve(this.sources.get(userId)?.has(source) ?? false);
  }
  forgetAllBut(userId: string, keep: string) {
    this.sources.set(userId, new Set([...(this.sources.get(userId) ?? [])].filter((s) => s === keep)));
    return Promise.resolve();
  }
}

function setup(options = OPTIONS) {
  const windows = new MemoryWindows();
  const backoffs = new MemoryBackoffs();
  const known = new MemoryKnownSources();
  const alerts: string[] = [];
  const owner = userRow({ id: '7', email: 'owner@example.com' });
  known.sources.set(owner.id, new Set([OWNER_HOME]));
  const limits = new LoginLimits(windows, backoffs, known, options, { limitReached: (u, kind) => alerts.push(`${u.id}:${kind}`) });
  /** One failed login (the attempt goes ahead and the password is wrong), or the 429 that refused it. */
  const fail = (login: string, ip: string, user: UserRow | null = owner) =>
    limits.attempt(login, user ?? undefined, ip).then(
      () => 'checked',
      (e: unknown) => e as RateLimitedError,
    );
  return { limits, backoffs, known, alerts, owner, fail };
}

describe('LoginLimits', () => {
  it('when one network fails a login past its allowance, then it waits, each wait twice the last, and the wait is what the 429 says', async () => {
    const { fail, backoffs } = setup();
    expect([await fail('owner@example.com', '203.0.113.1'), await fail('owner@example.com', '203.0.113.1')]).toEqual([
      'checked',
      'checked',
    ]);
    const first = await fail('owner@example.com', '203.0.113.1');
    expect(first).toBeInstanceOf(RateLimitedError);
    expect((first as RateLimitedError).retryAfterMs).toBe(1000);
    backoffs.now += 1000;
    expect(await fail('owner@example.com', '203.0.113.1')).toBe('checked');
    expect(((await fail('owner@example.com', '203.0.113.1')) as RateLimitedError).retryAfterMs).toBe(2000);
    backoffs.now += 2000;
    expect(await fail('owner@example.com', '203.0.113.1')).toBe('checked');
    expect(((await fail('owner@example.com', '203.0.113.1')) as RateLimitedError).retryAfterMs).toBe(4000);
  });

  it("when strangers spend the account's allowance, then unknown networks wait and the owner's known one does not", async () => {
    const { fail, alerts, owner } = setup();
    for (let i = 0; i < OPTIONS.perAccount; i++) expect(await fail('Owner@Example.com', `203.0.113.${i + 1}`)).toBe('checked');
    const refused = await fail('owner@example.com', '203.0.113.200');
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(alerts).toEqual([`${owner.id}:login`]);
    expect(await fail('owner@example.com', OWNER_HOME)).toBe('checked');
  });

  it('when the login has no account, then the same limits apply (no existence leak), and nobody is mailed', async () => {
    const { fail, alerts } = setup();
    for (let i = 0; i < OPTIONS.perAccount; i++) expect(await fail('ghost@example.com', `203.0.113.${i + 1}`, null)).toBe('checked');
    expect(await fail('ghost@example.com', '203.0.113.99', null)).toBeInstanceOf(RateLimitedError);
    expect(alerts).toEqual([]);
  });

  it('when the password is never checked (the process too busy, 503), then the withdrawn attempt counts nowhere', async () => {
    const { limits, fail, owner } = setup();
    // A stranger's network: the pair, the account and the address limits all count it.
    for (let i = 0; i < 10; i++) await (await limits.attempt('owner@example.com', owner, '203.0.113.1')).withdrawn();
    expect([await fail('owner@example.com', '203.0.113.1'), await fail('owner@example.com', '203.0.113.1')]).toEqual([
      'checked',
      'checked',
    ]);
    expect(await fail('owner@example.com', '203.0.113.1')).toBeInstanceOf(RateLimitedError);
  });

  it('when a login succeeds, then its network starts afresh and the attempt is given back', async () => {
    const { limits, fail, owner } = setup();
    await fail('owner@example.com', '203.0.113.1');
    const attempt = await limits.attempt('owner@example.com', owner, '203.0.113.1');
    await attempt.succeeded();
    expect([await fail('owner@example.com', '203.0.113.1'), await fail('owner@example.com', '203.0.113.1')]).toEqual([
      'checked',
      'checked',
    ]);
  });

  it('when one network tries many logins, then its window refuses it for every login', async () => {
    const { fail } = setup({ ...OPTIONS, perIp: 3 });
    for (const login of ['a@x.io', 'b@x.io', 'c@x.io']) expect(await fail(login, '203.0.113.9', null)).toBe('checked');
    const refused = (await fail('d@x.io', '203.0.113.9', null)) as RateLimitedError;
    expect(refused.rule.name).toBe('login-failures:ip');
    expect(await fail('d@x.io', '203.0.113.8', null)).toBe('checked');
  });

  it('when the owner resets the password, then strangers stop counting and only the reset network stays known', async () => {
    const { limits, fail, known, owner } = setup();
    for (let i = 0; i <= OPTIONS.perAccount; i++) await fail('owner@example.com', `203.0.113.${i + 1}`);
    await limits.forgive(owner, '192.0.2.5');
    expect(await fail('owner@example.com', '203.0.113.77')).toBe('checked');
    expect([...known.sources.get(owner.id)!]).toEqual([]);
  });

  it('when counting, then keys hold hashes, never the login or the address', async () => {
    const { fail, backoffs } = setup();
    await fail('alice@example.com', '10.0.0.1');
    expect([...backoffs.entries.keys()].join()).not.toMatch(/alice|10\.0\.0\.1/);
  });
});
