import { randomInt } from 'node:crypto';
import type { Identity } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, expectFormError, type Account } from './auth.harness.js';
import { newPhone, TwilioPeer } from './delivery.peers.js';
import { codeAt, enrolledAccount } from './mfa.fixtures.js';

let auth: AuthHarness;
let twilio: TwilioPeer;

const FORGOT_PER_LOGIN = 3;
const FORGOT_PER_IP = 6;

beforeAll(async () => {
  twilio = await TwilioPeer.start();
  auth = await AuthHarness.start({
    ...twilio.env(),
    FORGOT_PER_LOGIN,
    FORGOT_PER_IP,
  });
});

afterAll(async () => {
  await auth?.close();
  await twilio?.close();
});

/** An address of its own, so the per-address limits of one test do not touch another. */
const newIp = () => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

type Caller = Partial<Identity>;
const post = <T = unknown>(path: string, identity: Caller | undefined, body: unknown) =>
  auth.request<T>('POST', path, { ...(identity ? { identity } : {}), body });

const forgot = (login: unknown, clientIp = newIp()) => post<{ code: number; method: string }>('/auth/forgot', { clientIp }, { login });
const verify = (phone: string, code: string) => post<{ token: string }>('/phone-verifications/verify', undefined, { phone, code });
const reset = (body: unknown) => post<Record<string, unknown>>('/auth/reset', { clientIp: newIp() }, body);
const resend = (phone: unknown, clientIp = newIp()) => post('/phone-verifications/resend', { clientIp }, { phone });

/** Adds a verified phone to the account through the real flow. */
async function withPhone(account: Account): Promise<string> {
  const phone = newPhone();
  expect((await post('/users/@me/phone', { ...account.identity, clientIp: newIp() }, { phone })).status).toBe(204);
  const verified = await verify(phone, await twilio.codeSentTo(phone));
  expect(verified.status).toBe(200);
  const added = await post('/users/@me/phone', account.identity, { phone_token: verified.body.token, password: account.password });
  expect(added.status, JSON.stringify(added.body)).toBe(204);
  return phone;
}

async function login(loginName: string, password: string) {
  return post<{ token?: string; ticket?: string }>('/auth/login', { clientIp: newIp() }, { login: loginName, password });
}

describe('reset by phone', () => {
  it('when forgot names an account phone, then 70007 and a code by SMS; its verified token resets the password and ends the sessions', async () => {
    const account = await auth.register();
    const phone = await withPhone(account);
    const texts = twilio.received.filter((m) => m.to === phone).length;

    const reply = await forgot(phone);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ code: 70007, message: 'Phone verification is required to perform this action' });
    const verified = await verify(phone, await twilio.codeSentTo(phone, texts + 1));
    expect(verified.status).toBe(200);

    const done = await reset({ token: verified.body.token, password: 'a phone reset password' });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ token: expect.any(String) });
    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(false);
    expect((await login(phone, 'a phone reset password')).status).toBe(200);
    expect((await login(account.email, account.password)).status).toBe(400);
    // The token went with the reset.
    expectFormError(await reset({ token: verified.body.token, password: 'yet another password' }), { token: 'TOKEN_INVALID' });
  });

  it('when the phone account has MFA, then the phone token only opens the MFA step and the code completes it', async () => {
    const account = await enrolledAccount(auth);
    const phone = await withPhone(account);
    const texts = twilio.received.filter((m) => m.to === phone).length;
    expect((await forgot(phone)).body.code).toBe(70007);
    const verified = await verify(phone, await twilio.codeSentTo(phone, texts + 1));
    const first = await reset({ token: verified.body.token, password: 'a phone reset password' });
    expect(first.body).toMatchObject({ user_id: account.userId, mfa: true, ticket: expect.any(String) });
    const done = await reset({
      token: verified.body.token,
      password: 'a phone reset password',
      method: 'totp',
      ticket: first.body.ticket,
      code: codeAt(account.secret, 1),
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ token: expect.any(String) });
  });

  it('when forgot names an unknown phone, then the same 70007 and no text', async () => {
    const phone = newPhone();
    const reply = await forgot(phone);
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe(70007);
    expect(await twilio.messagesTo(phone, 1, 300)).toEqual([]);
  });

  it('when a phone token is for a number no account has, or the number left the account, then the reset is refused', async () => {
    // A registration phone token: verified, but nobody's number.
    const stray = newPhone();
    expect((await post('/auth/register/phone', { clientIp: newIp() }, { phone: stray })).status).toBe(204);
    const strayToken = await verify(stray, await twilio.codeSentTo(stray));
    expectFormError(await reset({ token: strayToken.body.token, password: 'a phone reset password' }), { token: 'TOKEN_INVALID' });

    const account = await auth.register();
    const phone = await withPhone(account);
    const texts = twilio.received.filter((m) => m.to === phone).length;
    await forgot(phone);
    const verified = await verify(phone, await twilio.codeSentTo(phone, texts + 1));
    const removed = await auth.request('DELETE', '/users/@me/phone', { identity: account.identity, body: { password: account.password } });
    expect(removed.status).toBe(204);
    expectFormError(await reset({ token: verified.body.token, password: 'a phone reset password' }), { token: 'TOKEN_INVALID' });
    expect((await login(account.email, account.password)).status).toBe(200);
  });

  it('when the same phone token is used by two resets at once, then exactly one succeeds', async () => {
    const account = await auth.register();
    const phone = await withPhone(account);
    const texts = twilio.received.filter((m) => m.to === phone).length;
    await forgot(phone);
    const verified = await verify(phone, await twilio.codeSentTo(phone, texts + 1));
    const replies = await Promise.all(
      ['first concurrent password', 'second concurrent password'].map((password) => reset({ token: verified.body.token, password })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
  });
});

describe('POST /auth/forgot limits', () => {
  it('when one login is asked for too often, then 429 with the rate-limit body and headers, known account or not', async () => {
    const account = await auth.register();
    const unknown = `${unique('nobody')}@example.com`;
    for (const loginName of [account.email, unknown]) {
      for (let i = 0; i < FORGOT_PER_LOGIN; i++) expect((await forgot(loginName)).status).toBe(200);
      // Another address and another case of the same login: still the same login's window.
      const limited = await forgot(loginName.toUpperCase());
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('x-ratelimit-limit')).toBe(String(FORGOT_PER_LOGIN));
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it('when one address asks too often, then 429 for any login from it, and other addresses are unaffected', async () => {
    const ip = newIp();
    const answers = await Promise.all(
      Array.from({ length: FORGOT_PER_IP + 3 }, () => forgot(`${unique('ip')}@example.com`, ip).then((r) => r.status)),
    );
    // Concurrent requests cannot slip past the counter.
    expect(answers.filter((s) => s === 200)).toHaveLength(FORGOT_PER_IP);
    expect(answers.filter((s) => s === 429)).toHaveLength(3);
    expect((await forgot(`${unique('ip')}@example.com`, newIp())).status).toBe(200);
  });
});

describe('POST /phone-verifications/resend', () => {
  it('when a code is pending, then a new code is texted and it verifies', async () => {
    const phone = newPhone();
    expect((await post('/auth/register/phone', { clientIp: newIp() }, { phone })).status).toBe(204);
    await twilio.codeSentTo(phone);
    expect((await resend(phone)).status).toBe(204);
    const code = await twilio.codeSentTo(phone, 2);
    expect((await verify(phone, code)).status).toBe(200);
  });

  it('when no code is pending, then the same 204 and nothing is texted', async () => {
    const phone = newPhone();
    expect((await resend(phone)).status).toBe(204);
    expect(await twilio.messagesTo(phone, 1, 300)).toEqual([]);
  });

  it('when resent too often, then 429; when the phone is missing or invalid, then 50035', async () => {
    const phone = newPhone();
    const ip = newIp();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await resend(phone, ip)).status);
    expect(statuses).toEqual([204, 204, 204, 429]);
    expectFormError(await resend(undefined), { phone: 'BASE_TYPE_REQUIRED' });
    expectFormError(await resend('12345'), { phone: 'PHONE_NUMBER_INVALID' });
    const malformed = await auth.request<{ code: number }>('POST', '/phone-verifications/resend', { rawBody: '{"phone":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe(50109);
  });
});
