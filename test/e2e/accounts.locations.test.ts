import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, fieldCode, newUser, uniqueName } from './client.js';
import { codeTextedTo, linkMailedTo } from './inbox.js';

// Issue 17 item 4: a login from a new place is verified by a mailed link or, for a login by phone,
// by a texted code whose phone token Authorize IP accepts. The clients come through the system's
// trusted proxy, whose X-Forwarded-For names a public address GeoIP places in the United Kingdom.

const UK_CLIENT = '81.2.69.142';
const AUTHORIZE_LINK = /\/authorize-ip#token=([A-Za-z0-9_-]+)/;
const newPhone = () => `+1212${randomInt(200, 1000)}${String(randomInt(0, 10_000)).padStart(4, '0')}`;

const loginFromUk = (login: string, password: string) => api('POST', '/auth/login', { forwardedFor: UK_CLIENT, body: { login, password } });

/** An account registered by phone (no email), with a password. */
async function phoneAccount() {
  const phone = newPhone();
  expect((await api('POST', '/auth/register/phone', { body: { phone } })).status).toBe(204);
  const verified = await api('POST', '/phone-verifications/verify', { body: { phone, code: await codeTextedTo(phone) } });
  const password = 'a phone account password';
  const registered = await api('POST', '/auth/register', {
    body: { username: uniqueName(), phone_token: verified.json.token, password, consent: true, date_of_birth: '1990-01-01' },
  });
  expect(registered.status, JSON.stringify(registered.json)).toBe(201);
  return { phone, password };
}

describe('authorize a new login location', () => {
  it('when an email login comes from a new country, then a mailed link authorizes it and the login goes through', async () => {
    const user = await newUser();
    const refused = await loginFromUk(user.email, user.password);
    expect(refused.status).toBe(400);
    expect(fieldCode(refused.json, 'login')).toBe('ACCOUNT_LOGIN_VERIFICATION_EMAIL');
    const token = await linkMailedTo(user.email, AUTHORIZE_LINK);
    const authorized = await api('POST', '/auth/authorize-ip', { forwardedFor: UK_CLIENT, body: { token } });
    expect(authorized.status).toBe(204);
    const login = await loginFromUk(user.email, user.password);
    expect(login.status, JSON.stringify(login.json)).toBe(200);
    // The link works once.
    const again = await api('POST', '/auth/authorize-ip', { body: { token } });
    expect(fieldCode(again.json, 'token')).toBe('TOKEN_INVALID');
  });

  it('when a phone login comes from a new country, then a texted code earns a phone token that Authorize IP accepts', async () => {
    const account = await phoneAccount();
    const refused = await loginFromUk(account.phone, account.password);
    expect(refused.status).toBe(400);
    expect(fieldCode(refused.json, 'login')).toBe('ACCOUNT_LOGIN_VERIFICATION_PHONE');
    const verified = await api('POST', '/phone-verifications/verify', {
      forwardedFor: UK_CLIENT,
      body: { phone: account.phone, code: await codeTextedTo(account.phone, 2) },
    });
    expect(verified.status, JSON.stringify(verified.json)).toBe(200);
    const authorized = await api('POST', '/auth/authorize-ip', { forwardedFor: UK_CLIENT, body: { token: verified.json.token } });
    expect(authorized.status).toBe(204);
    const login = await loginFromUk(account.phone, account.password);
    expect(login.status, JSON.stringify(login.json)).toBe(200);
  });

  it('when Authorize IP gets an unknown token, or a phone token no login waits for, then TOKEN_INVALID and the phone token stays usable', async () => {
    const garbage = await api('POST', '/auth/authorize-ip', { body: { token: 'A'.repeat(43) } });
    expect(garbage.status).toBe(400);
    expect(fieldCode(garbage.json, 'token')).toBe('TOKEN_INVALID');
    const phone = newPhone();
    await api('POST', '/auth/register/phone', { body: { phone } });
    const verified = await api('POST', '/phone-verifications/verify', { body: { phone, code: await codeTextedTo(phone) } });
    const idle = await api('POST', '/auth/authorize-ip', { body: { token: verified.json.token } });
    expect(fieldCode(idle.json, 'token')).toBe('TOKEN_INVALID');
    const registered = await api('POST', '/auth/register', {
      body: { username: uniqueName(), phone_token: verified.json.token, consent: true, date_of_birth: '1990-01-01' },
    });
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);
  });
});
