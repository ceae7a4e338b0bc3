import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, fieldCode, uniqueName } from './client.js';
import { codeTextedTo } from './inbox.js';

// Issue 17 item 2: registering with only a name (the platform's "unclaimed" account, as invite
// and gift flows make it), and claiming it later by setting an email and a password.

const DATE_OF_BIRTH = '1994-03-08';
/** An address GeoIP places in Germany, where registering needs explicit consent. */
const GERMAN_CLIENT = '46.4.0.1';
const newPhone = () => `+1650${randomInt(200, 1000)}${String(randomInt(0, 10_000)).padStart(4, '0')}`;

async function registerUnclaimed(body: Record<string, unknown>) {
  const reply = await api('POST', '/auth/register', { body: { consent: true, date_of_birth: DATE_OF_BIRTH, ...body } });
  expect(reply.status, JSON.stringify(reply.json)).toBe(201);
  return reply.json.token as string;
}

describe('unclaimed accounts', () => {
  it('when only a username is given, then the token works and the account has no email, phone or password yet', async () => {
    const username = uniqueName();
    const token = await registerUnclaimed({ username });
    const me = await api('GET', '/users/@me', { token });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ username, email: null, phone: null, verified: false, mfa_enabled: false });
  });

  it('when only a display name is given, then a username is made from it', async () => {
    const token = await registerUnclaimed({ global_name: 'Quiet Otter' });
    const me = await api('GET', '/users/@me', { token });
    expect(me.json).toMatchObject({ global_name: 'Quiet Otter', username: expect.stringMatching(/^quietotter\d*$/) });
  });

  it('when the owner sets an email and a password, then the account is claimed: a new token, and that email and password log in', async () => {
    const token = await registerUnclaimed({ global_name: 'Claimer' });
    const email = `${uniqueName('c')}@example.com`;
    const short = await api('PATCH', '/users/@me', { token, body: { email, password: 'short' } });
    expect(short.status).toBe(400);
    expect(fieldCode(short.json, 'password')).toBe('BASE_TYPE_BAD_LENGTH');

    const claimed = await api('PATCH', '/users/@me', { token, body: { email, password: 'a password of my own' } });
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(200);
    expect(claimed.json).toMatchObject({ email, token: expect.any(String) });
    expect((await api('GET', '/users/@me', { token: claimed.json.token as string })).status).toBe(200);
    const login = await api('POST', '/auth/login', { body: { login: email, password: 'a password of my own' } });
    expect(login.status, JSON.stringify(login.json)).toBe(200);
    // From now on the password is checked like any other.
    const wrong = await api('PATCH', '/users/@me', {
      token: login.json.token as string,
      body: { username: uniqueName(), password: 'not it at all' },
    });
    expect(fieldCode(wrong.json, 'password')).toBe('PASSWORD_DOES_NOT_MATCH');
  });

  it('when the email to claim with is registered already, then EMAIL_ALREADY_REGISTERED and nothing changes', async () => {
    const taken = `${uniqueName('t')}@example.com`;
    await registerUnclaimed({ username: uniqueName(), email: taken, password: 'correct horse battery' });
    const token = await registerUnclaimed({ username: uniqueName() });
    const reply = await api('PATCH', '/users/@me', { token, body: { email: taken.toUpperCase(), password: 'a password of my own' } });
    expect(reply.status).toBe(400);
    expect(fieldCode(reply.json, 'email')).toBe('EMAIL_ALREADY_REGISTERED');
    expect((await api('GET', '/users/@me', { token })).json.email).toBeNull();
  });

  it('when a verified phone registers without email or password, then the phone is the account and claiming adds the rest', async () => {
    const phone = newPhone();
    expect((await api('POST', '/auth/register/phone', { body: { phone } })).status).toBe(204);
    const verified = await api('POST', '/phone-verifications/verify', { body: { phone, code: await codeTextedTo(phone) } });
    expect(verified.status, JSON.stringify(verified.json)).toBe(200);
    const token = await registerUnclaimed({ global_name: 'Phone Person', phone_token: verified.json.token });
    expect((await api('GET', '/users/@me', { token })).json).toMatchObject({ phone, email: null });
    const claimed = await api('PATCH', '/users/@me', {
      token,
      body: { email: `${uniqueName('p')}@example.com`, password: 'a password of my own' },
    });
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(200);
    const byPhone = await api('POST', '/auth/login', { body: { login: phone, password: 'a password of my own' } });
    expect(byPhone.status, JSON.stringify(byPhone.json)).toBe(200);
  });

  it('when neither a username nor a display name is given, or consent is missing where it is required, then 50035 on that field', async () => {
    const nameless = await api('POST', '/auth/register', { body: { consent: true, date_of_birth: DATE_OF_BIRTH } });
    expect(nameless.status).toBe(400);
    expect(fieldCode(nameless.json, 'username')).toBe('BASE_TYPE_REQUIRED');
    const metadata = await api('GET', '/auth/location-metadata', { forwardedFor: GERMAN_CLIENT });
    expect(metadata.json).toMatchObject({ country_code: 'DE', consent_required: true });
    const unconsented = await api('POST', '/auth/register', {
      forwardedFor: GERMAN_CLIENT,
      body: { username: uniqueName(), date_of_birth: DATE_OF_BIRTH },
    });
    expect(unconsented.status).toBe(400);
    expect(fieldCode(unconsented.json, 'consent')).toBe('CONSENT_REQUIRED');
  });
});
