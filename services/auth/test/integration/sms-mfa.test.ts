import { randomInt } from 'node:crypto';
import type { Identity } from '@kith/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, expectFormError, type Reply } from './auth.harness.js';
import { newPhone, TwilioPeer } from './delivery.peers.js';
import { enrolledAccount, expectMfaRequired, finishMfa, type EnrolledAccount } from './mfa.fixtures.js';

let auth: AuthHarness;
let twilio: TwilioPeer;

beforeAll(async () => {
  twilio = await TwilioPeer.start();
  auth = await AuthHarness.start(twilio.env());
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

/** Texts a code to `phone` through `POST /users/@me/phone` and verifies it: the phone token. */
async function phoneToken(identity: Caller, phone: string): Promise<string> {
  const texted = twilio.received.filter((m) => m.to === phone).length;
  expect(
    (await post('/users/@me/phone', { ...identity, clientIp: newIp() }, { phone, change_phone_reason: 'mfa_phone_update' })).status,
  ).toBe(204);
  const verified = await post<{ token: string }>('/phone-verifications/verify', undefined, {
    phone,
    code: await twilio.codeSentTo(phone, texted + 1),
  });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return verified.body.token;
}

async function addPhone(identity: Caller, password: string, phone = newPhone()): Promise<string> {
  const reply = await post('/users/@me/phone', identity, { phone_token: await phoneToken(identity, phone), password });
  expect(reply.status, JSON.stringify(reply.body)).toBe(204);
  return phone;
}

interface SmsAccount extends EnrolledAccount {
  phone: string;
}

/** A TOTP-enrolled user with a verified phone and SMS MFA on. */
async function smsAccount(): Promise<SmsAccount> {
  const account = await enrolledAccount(auth);
  const phone = await addPhone(account.identity, account.password);
  const enabled = await post('/users/@me/mfa/sms/enable', account.identity, { password: account.password });
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(204);
  return { ...account, phone };
}

interface Challenge {
  ticket: string;
  login_instance_id: string;
  sms: boolean;
}

async function loginChallenge(login: string, password: string): Promise<Challenge> {
  const reply = await post<Challenge>('/auth/login', { clientIp: newIp() }, { login, password });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

/** Sends an SMS code for the ticket and reads it off the loopback provider. */
async function textedCode(account: SmsAccount, ticket: string): Promise<string> {
  const before = twilio.received.filter((m) => m.to === account.phone).length;
  const sent = await post<{ phone: string }>('/auth/mfa/sms/send', undefined, { ticket });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return twilio.codeSentTo(account.phone, before + 1);
}

const me = async (identity: Caller) => (await auth.request<Record<string, unknown>>('GET', '/users/@me', { identity })).body;

function expectCode(reply: Reply, status: number, code: number): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body).toMatchObject({ code });
}

describe('SMS MFA end to end through the loopback provider', () => {
  it('when a phone is added and SMS enabled, then login offers sms and the texted code signs in once', async () => {
    const account = await smsAccount();
    expect(await me(account.identity)).toMatchObject({ phone: account.phone, mfa_enabled: true, authenticator_types: [2, 3] });

    const challenge = await loginChallenge(account.email, account.password);
    expect(challenge).toMatchObject({ mfa: true, totp: true, sms: true, backup: true, webauthn: null });

    const sent = await post('/auth/mfa/sms/send', undefined, { ticket: challenge.ticket });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ phone: `+*******${account.phone.slice(-4)}` });
    const [text] = (await twilio.messagesTo(account.phone, 2)).slice(-1);
    expect(text).toMatchObject({ to: account.phone, from: '+15005550006', body: expect.stringMatching(/\b\d{6}\b/) });
    const code = await twilio.codeSentTo(account.phone, 2);

    const reply = await post<{ token: string }>('/auth/mfa/sms', undefined, {
      ticket: challenge.ticket,
      code,
      login_instance_id: challenge.login_instance_id,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ token: expect.any(String), user_settings: { locale: 'en-US', theme: 'dark' } });
    const identity = await auth.identityOf(reply.body.token);
    expect(identity.userId).toBe(account.userId);
    expect(await me(identity)).toMatchObject({ id: account.userId });

    expectCode(await post('/auth/mfa/sms', undefined, { ticket: challenge.ticket, code }), 400, 60006);
  });

  it('when the code is wrong, then 60008 and the ticket lives on; a used code does not work for a new ticket', async () => {
    const account = await smsAccount();
    const challenge = await loginChallenge(account.email, account.password);
    const code = await textedCode(account, challenge.ticket);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const bad = await post('/auth/mfa/sms', undefined, { ticket: challenge.ticket, code: wrong });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 60008, message: 'Invalid two-factor code' });
    expect((await post('/auth/mfa/sms', undefined, { ticket: challenge.ticket, code })).status).toBe(200);

    const next = await loginChallenge(account.email, account.password);
    expectCode(await post('/auth/mfa/sms', undefined, { ticket: next.ticket, code }), 400, 60008);
  });

  it('when no code was sent for the ticket, then 60008; when the ticket is unknown, then 60006', async () => {
    const account = await smsAccount();
    const challenge = await loginChallenge(account.email, account.password);
    expectCode(await post('/auth/mfa/sms', undefined, { ticket: challenge.ticket, code: '123456' }), 400, 60008);
    expectCode(await post('/auth/mfa/sms', undefined, { ticket: 'nope', code: '123456' }), 400, 60006);
    expectCode(await post('/auth/mfa/sms/send', undefined, { ticket: 'nope' }), 400, 60006);
  });

  it('when the ticket asks for more texts than its limit, then the platform 429 with its headers', async () => {
    const account = await smsAccount();
    const challenge = await loginChallenge(account.email, account.password);
    for (let i = 0; i < 3; i++) expect((await post('/auth/mfa/sms/send', undefined, { ticket: challenge.ticket })).status).toBe(200);
    const limited = await post('/auth/mfa/sms/send', undefined, { ticket: challenge.ticket });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('when the user has no SMS MFA, then send answers 60010 and login offers no sms; a bad body is 50035 or 50109', async () => {
    const account = await enrolledAccount(auth);
    const challenge = await loginChallenge(account.email, account.password);
    expect(challenge.sms).toBe(false);
    expectCode(await post('/auth/mfa/sms/send', undefined, { ticket: challenge.ticket }), 400, 60010);
    expectFormError(await post('/auth/mfa/sms/send', undefined, {}), { ticket: 'BASE_TYPE_REQUIRED' });
    expectCode(await auth.request('POST', '/auth/mfa/sms/send', { rawBody: '{"ticket":' }), 400, 50109);
  });
});

describe('enabling and disabling SMS MFA', () => {
  it('when TOTP is off, then 60002; when there is no phone, then 70007; a wrong password, then 50018', async () => {
    const plain = await auth.register();
    await addPhone(plain.identity, plain.password);
    expectCode(await post('/users/@me/mfa/sms/enable', plain.identity, { password: plain.password }), 400, 60002);

    const enrolled = await enrolledAccount(auth);
    expectCode(await post('/users/@me/mfa/sms/enable', enrolled.identity, { password: enrolled.password }), 403, 70007);
    expectCode(await post('/users/@me/mfa/sms/enable', enrolled.identity, { password: 'wrong password' }), 400, 50018);
  });

  it('when the caller is anonymous, then 401; when the JSON is malformed, then 50109', async () => {
    expect((await post('/users/@me/mfa/sms/enable', undefined, { password: 'x' })).status).toBe(401);
    expect((await post('/users/@me/mfa/sms/disable', undefined, { password: 'x' })).status).toBe(401);
    expect((await post('/users/@me/phone', undefined, { phone: newPhone() })).status).toBe(401);
    const account = await auth.register();
    const malformed = await auth.request('POST', '/users/@me/mfa/sms/enable', { identity: account.identity, rawBody: '{' });
    expectCode(malformed, 400, 50109);
  });

  it('when disabling without elevation, then 60003 offering sms; an SMS-verified elevation then disables it', async () => {
    const account = await smsAccount();
    const required = expectMfaRequired(await post('/users/@me/mfa/sms/disable', account.identity, { password: account.password }), [
      { type: 'totp', backup_codes_allowed: true },
      { type: 'sms' },
    ]);
    // The elevation ticket asks for its own text; a wrong code is 60008.
    const code = await textedCode(account, required.mfa.ticket);
    const wrong = await post('/mfa/finish', account.identity, {
      ticket: required.mfa.ticket,
      mfa_type: 'sms',
      data: '000000' === code ? '111111' : '000000',
    });
    expectCode(wrong, 400, 60008);
    const { token } = await finishMfa(auth, account.identity, required, 'sms', code);

    const headers = { 'x-discord-mfa-authorization': token };
    const badPassword = await auth.request('POST', '/users/@me/mfa/sms/disable', {
      identity: account.identity,
      headers,
      body: { password: 'nope' },
    });
    expectCode(badPassword, 400, 50018);
    const disabled = await auth.request('POST', '/users/@me/mfa/sms/disable', {
      identity: account.identity,
      headers,
      body: { password: account.password },
    });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(204);
    expect(await me(account.identity)).toMatchObject({ mfa_enabled: true, authenticator_types: [2], phone: account.phone });
    expect((await loginChallenge(account.email, account.password)).sms).toBe(false);

    const again = await auth.request('POST', '/users/@me/mfa/sms/disable', {
      identity: account.identity,
      headers,
      body: { password: account.password },
    });
    expectCode(again, 400, 60010);
  });
});

describe('the phone on the account', () => {
  it('when the phone token is unknown or the password wrong, then 50035 or 50018; without phone or token, 50035', async () => {
    const account = await auth.register();
    const invalid = await post('/users/@me/phone', account.identity, { phone_token: 'not-a-token', password: account.password });
    expectFormError(invalid, { phone_token: 'PHONE_TOKEN_INVALID' });
    const token = await phoneToken(account.identity, newPhone());
    expectCode(await post('/users/@me/phone', account.identity, { phone_token: token, password: 'wrong' }), 400, 50018);
    expectFormError(await post('/users/@me/phone', account.identity, {}), { phone_token: 'BASE_TYPE_REQUIRED' });
    expect((await post('/users/@me/phone', account.identity, { phone: 'not a number' })).status).toBe(400);
    // The token was not spent by the refused request.
    expect((await post('/users/@me/phone', account.identity, { phone_token: token, password: account.password })).status).toBe(204);
  });

  it('when the number is on another account, then 50035 PHONE_ALREADY_REGISTERED', async () => {
    const first = await auth.register();
    const phone = await addPhone(first.identity, first.password);
    const second = await auth.register();
    const reply = await post('/users/@me/phone', second.identity, {
      phone_token: await phoneToken(second.identity, phone),
      password: second.password,
    });
    expectFormError(reply, { phone: 'PHONE_ALREADY_REGISTERED' });
  });

  it('when SMS MFA is on, then removing the phone is refused; once SMS is off it is removed', async () => {
    const account = await smsAccount();
    const remove = (password: string, headers: Record<string, string> = {}) =>
      auth.request('DELETE', '/users/@me/phone', {
        identity: account.identity,
        headers,
        body: { password, change_phone_reason: 'user_settings_update' },
      });
    expectFormError(await remove(account.password), { phone: 'PHONE_REQUIRED_FOR_SMS_MFA' });
    expectCode(await remove('wrong'), 400, 50018);

    const required = expectMfaRequired(await post('/users/@me/mfa/sms/disable', account.identity, { password: account.password }), [
      { type: 'totp', backup_codes_allowed: true },
      { type: 'sms' },
    ]);
    const { token } = await finishMfa(auth, account.identity, required, 'sms', await textedCode(account, required.mfa.ticket));
    const off = await auth.request('POST', '/users/@me/mfa/sms/disable', {
      identity: account.identity,
      headers: { 'x-discord-mfa-authorization': token },
      body: { password: account.password },
    });
    expect(off.status).toBe(204);
    expect((await remove(account.password)).status).toBe(204);
    expect(await me(account.identity)).toMatchObject({ phone: null, authenticator_types: [2] });
  });

  it('when TOTP is disabled, then SMS MFA goes with it', async () => {
    const account = await smsAccount();
    const required = expectMfaRequired(await post('/users/@me/mfa/totp/disable', account.identity, {}), [
      { type: 'totp', backup_codes_allowed: true },
      { type: 'sms' },
    ]);
    const { token } = await finishMfa(auth, account.identity, required, 'sms', await textedCode(account, required.mfa.ticket));
    const reply = await auth.request<{ token: string }>('POST', '/users/@me/mfa/totp/disable', {
      identity: account.identity,
      headers: { 'x-discord-mfa-authorization': token },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(await me(await auth.identityOf(reply.body.token))).toMatchObject({
      mfa_enabled: false,
      authenticator_types: [],
      phone: account.phone,
    });
  });
});
