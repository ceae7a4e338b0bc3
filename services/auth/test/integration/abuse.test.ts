import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, expectFormError, type Reply } from './auth.harness.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start({
    LOGIN_FAILURES_PER_ACCOUNT: 5,
    LOGIN_FAILURES_PER_IP: 20,
    LOGIN_FAILURE_WINDOW_SECONDS: WINDOW_SECONDS,
  });
});

afterAll(async () => {
  await auth?.close();
});

/** A private address of its own (GeoIP places none, so no new-location check), its own per-address window. */
const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const INVALID_LOGIN = { login: 'INVALID_LOGIN', password: 'INVALID_LOGIN' };
const WINDOW_SECONDS = 300;

const login = (login: string, password: string, clientIp = newIp()) =>
  auth.request<Record<string, unknown>>('POST', '/auth/login', { identity: { clientIp }, body: { login, password } });

/** The platform's 429: the exact body and every rate-limit header. */
function expectRateLimited(reply: Reply, limit: number): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(429);
  expect(reply.body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
  const retryAfter = (reply.body as { retry_after: number }).retry_after;
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
  const h = reply.headers;
  expect(h.get('x-ratelimit-limit')).toBe(String(limit));
  expect(h.get('x-ratelimit-remaining')).toBe('0');
  expect(h.get('x-ratelimit-reset-after')).toBe(retryAfter.toFixed(3));
  expect(Number(h.get('x-ratelimit-reset'))).toBeCloseTo(Date.now() / 1000 + retryAfter, -1);
  expect(h.get('x-ratelimit-reset')).toMatch(/^\d+\.\d{3}$/);
  expect(h.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
  expect(h.get('x-ratelimit-scope')).toBe('user');
  expect(h.get('retry-after')).toBe(String(Math.ceil(retryAfter)));
}

describe('login failure limits', () => {
  it('when an account has 5 failures from different addresses, then the 6th try is 429 even with the right password', async () => {
    const account = await auth.register();
    for (let i = 0; i < 5; i++) expectFormError(await login(account.email, 'wrong password'), INVALID_LOGIN);
    expectRateLimited(await login(account.email, account.password), 5);
    // The login string is the subject, case aside.
    expectRateLimited(await login(account.email.toUpperCase(), account.password), 5);
  });

  it('when the login belongs to no account, then the same 5 failures and the same 429 (no existence leak)', async () => {
    const nobody = `nobody-${randomInt(1e9)}@example.com`;
    for (let i = 0; i < 5; i++) expectFormError(await login(nobody, 'wrong password'), INVALID_LOGIN);
    expectRateLimited(await login(nobody, 'wrong password'), 5);
  });

  it('when one address has 20 failures across logins, then its next login is 429 while another address logs in', async () => {
    const ip = newIp();
    const account = await auth.register();
    for (let i = 0; i < 20; i++) expectFormError(await login(`spray-${randomInt(1e9)}@example.com`, 'wrong password', ip), INVALID_LOGIN);
    expectRateLimited(await login(account.email, account.password, ip), 20);
    const elsewhere = await login(account.email, account.password);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toMatchObject({ user_id: account.userId, token: expect.any(String) });
  });

  it('when logins succeed, then they do not count toward the limit', async () => {
    const account = await auth.register();
    const ip = newIp();
    for (let i = 0; i < 4; i++) expectFormError(await login(account.email, 'wrong password', ip), INVALID_LOGIN);
    for (let i = 0; i < 6; i++) expect((await login(account.email, account.password, ip)).status).toBe(200);
    expectFormError(await login(account.email, 'wrong password', ip), INVALID_LOGIN);
    expectRateLimited(await login(account.email, account.password, ip), 5);
  });
});
