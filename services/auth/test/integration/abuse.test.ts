import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, expectFormError, type Reply } from './auth.harness.js';

let auth: AuthHarness;

// The limits of this file's service, pinned as numbers: small, so tests stay short.
const PER_SOURCE = 5;
const PER_ACCOUNT = 8;
const PER_IP = 20;
const BASE_DELAY_SECONDS = 1;
const MAX_DELAY_SECONDS = 8;

beforeAll(async () => {
  auth = await AuthHarness.start({
    LOGIN_FAILURES_PER_SOURCE: PER_SOURCE,
    LOGIN_FAILURES_PER_ACCOUNT: PER_ACCOUNT,
    LOGIN_FAILURES_PER_IP: PER_IP,
    LOGIN_FAILURE_WINDOW_SECONDS: 300,
    LOGIN_LOCKOUT_BASE_SECONDS: BASE_DELAY_SECONDS,
    LOGIN_LOCKOUT_MAX_SECONDS: MAX_DELAY_SECONDS,
  });
});

afterAll(async () => {
  await auth?.close();
});

/** A private address of its own (GeoIP places none, so no new-location check): another network. */
const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const INVALID_LOGIN = { login: 'INVALID_LOGIN', password: 'INVALID_LOGIN' };

const login = (login: string, password: string, clientIp = newIp()) =>
  auth.request<Record<string, unknown>>('POST', '/auth/login', { identity: { clientIp }, body: { login, password } });

/** An account registered from (so signed in from, so known at) `home`. */
const registeredAt = (home: string) => auth.register({}, { identity: { clientIp: home } });

/** The platform's 429: the exact body and every rate-limit header; answers retry_after. */
function expectRateLimited(reply: Reply, limit: number): number {
  expect(reply.status, JSON.stringify(reply.body)).toBe(429);
  expect(reply.body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
  const retryAfter = (reply.body as { retry_after: number }).retry_after;
  expect(retryAfter).toBeGreaterThan(0);
  const h = reply.headers;
  expect(h.get('x-ratelimit-limit')).toBe(String(limit));
  expect(h.get('x-ratelimit-remaining')).toBe('0');
  expect(h.get('x-ratelimit-reset-after')).toBe(retryAfter.toFixed(3));
  expect(h.get('x-ratelimit-reset')).toMatch(/^\d+\.\d{3}$/);
  expect(h.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
  expect(h.get('x-ratelimit-scope')).toBe('user');
  expect(h.get('retry-after')).toBe(String(Math.ceil(retryAfter)));
  return retryAfter;
}

/** Waits (bounded) until a login from `ip` is no longer refused; a refused login counts nothing. */
async function waitOutDelay(email: string, ip: string): Promise<Reply> {
  const deadline = Date.now() + 4 * MAX_DELAY_SECONDS * 1000;
  for (;;) {
    const reply = await login(email, 'wrong password', ip);
    if (reply.status !== 429 || Date.now() > deadline) return reply;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('login failures from one network', () => {
  it('when a network fails a login 5 times, then it is refused even with the right password while another network logs in', async () => {
    const account = await registeredAt(newIp());
    const stranger = newIp();
    for (let i = 0; i < PER_SOURCE; i++) expectFormError(await login(account.email, 'wrong password', stranger), INVALID_LOGIN);
    expect(expectRateLimited(await login(account.email.toUpperCase(), account.password, stranger), PER_SOURCE)).toBeLessThanOrEqual(
      BASE_DELAY_SECONDS,
    );
    expect((await login(account.email, account.password)).status).toBe(200);
  });

  it('when the delay is over, then one more try is checked and the next delay is longer', async () => {
    const account = await registeredAt(newIp());
    const stranger = newIp();
    for (let i = 0; i < PER_SOURCE; i++) await login(account.email, 'wrong password', stranger);
    const first = expectRateLimited(await login(account.email, 'wrong password', stranger), PER_SOURCE);
    expectFormError(await waitOutDelay(account.email, stranger), INVALID_LOGIN);
    const second = expectRateLimited(await login(account.email, account.password, stranger), PER_SOURCE);
    expect(second).toBeGreaterThan(first);
    expect(second).toBeLessThanOrEqual(2 * BASE_DELAY_SECONDS);
  });

  it('when a login succeeds, then the failures of that network are forgotten', async () => {
    const home = newIp();
    const account = await registeredAt(home);
    for (let i = 0; i < PER_SOURCE - 1; i++) expectFormError(await login(account.email, 'wrong password', home), INVALID_LOGIN);
    expect((await login(account.email, account.password, home)).status).toBe(200);
    for (let i = 0; i < PER_SOURCE - 1; i++) expectFormError(await login(account.email, 'wrong password', home), INVALID_LOGIN);
    expect((await login(account.email, account.password, home)).status).toBe(200);
  });
});

describe('concurrent login failures', () => {
  // Delays long enough that none ends during the burst, however slow the machine.
  let slow: AuthHarness;
  beforeAll(async () => {
    slow = await AuthHarness.start({
      LOGIN_FAILURES_PER_SOURCE: PER_SOURCE,
      LOGIN_FAILURES_PER_ACCOUNT: 1000,
      LOGIN_LOCKOUT_BASE_SECONDS: 600,
    });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('when 30 wrong passwords arrive at once from one network, then at most 5 are checked and the rest are 429', async () => {
    const account = await slow.register({}, { identity: { clientIp: newIp() } });
    const stranger = newIp();
    const replies = await Promise.all(
      Array.from({ length: 30 }, () =>
        slow.request('POST', '/auth/login', {
          identity: { clientIp: stranger },
          body: { login: account.email, password: 'wrong password' },
        }),
      ),
    );
    const checked = replies.filter((r) => r.status === 400);
    expect(checked.length).toBeLessThanOrEqual(PER_SOURCE);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(30 - checked.length);
  });
});

describe('login failures from many networks', () => {
  it("when strangers' networks spend the account's allowance, then unknown networks wait and the owner's own network logs in", async () => {
    const home = newIp();
    const account = await registeredAt(home);
    for (let i = 0; i < PER_ACCOUNT; i++) expectFormError(await login(account.email, 'wrong password'), INVALID_LOGIN);
    expectRateLimited(await login(account.email, account.password), PER_ACCOUNT);
    const owner = await login(account.email, account.password, home);
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    // A network the owner logged in from before is known too.
    const elsewhere = await auth.login(account.email, account.password, { identity: { clientIp: home } });
    expect(elsewhere.token).toEqual(expect.any(String));
  });

  it('when the login belongs to no account, then the same allowance and the same 429 (no existence leak)', async () => {
    const nobody = `nobody-${randomInt(1e9)}@example.com`;
    for (let i = 0; i < PER_ACCOUNT; i++) expectFormError(await login(nobody, 'wrong password'), INVALID_LOGIN);
    expectRateLimited(await login(nobody, 'wrong password'), PER_ACCOUNT);
  });

  it('when one network fails 20 logins of different accounts, then its next login is 429 while another network logs in', async () => {
    const ip = newIp();
    const account = await registeredAt(newIp());
    for (let i = 0; i < PER_IP; i++)
      expectFormError(await login(`spray-${randomInt(1e9)}@example.com`, 'wrong password', ip), INVALID_LOGIN);
    expectRateLimited(await login(account.email, account.password, ip), PER_IP);
    const elsewhere = await login(account.email, account.password);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toMatchObject({ user_id: account.userId, token: expect.any(String) });
  });
});
