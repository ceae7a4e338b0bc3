import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../../services/auth/test/soft-authenticator.js';
import { api, fieldCode, newUser } from './client.js';
import { codeTextedTo, linkMailedTo } from './inbox.js';
import { totpUser, type TotpUser } from './mfa.fixtures.js';

// Issue 17 items 5 and 6: a reset offers every factor the account has, and mailed grants end
// together and with any password change. Links come from the mails the system really sent.

const RESET_LINK = /\/reset#token=([A-Za-z0-9_-]+)/;
const ONE_TIME_LINK = /\/login\/one-time\?ticket=([A-Za-z0-9_-]+)/;
const NEW_PASSWORD = 'an entirely new password';

/** A North American number nobody has used yet. */
const newPhone = () => `+1415${randomInt(200, 1000)}${String(randomInt(0, 10_000)).padStart(4, '0')}`;

/** Asks for a reset mail (the `count`-th to this address) and answers its links. */
async function mailedLinks(email: string, count: number) {
  expect((await api('POST', '/auth/forgot', { body: { login: email } })).status).toBe(200);
  const reset = await linkMailedTo(email, RESET_LINK, count);
  const oneTime = await linkMailedTo(email, ONE_TIME_LINK, count).catch(() => undefined);
  return { reset, oneTime };
}

/** A TOTP user who also has SMS as a factor (a verified phone) and one security key. */
async function userWithEveryFactor(): Promise<TotpUser & { phone: string; key: SoftAuthenticator }> {
  const user = await totpUser();
  const phone = newPhone();
  expect((await api('POST', '/users/@me/phone', { token: user.token, body: { phone } })).status).toBe(204);
  const verified = await api('POST', '/phone-verifications/verify', { body: { phone, code: await codeTextedTo(phone) } });
  expect(verified.status, JSON.stringify(verified.json)).toBe(200);
  const added = await api('POST', '/users/@me/phone', {
    token: user.token,
    body: { phone_token: verified.json.token, password: user.password },
  });
  expect(added.status, JSON.stringify(added.json)).toBe(204);
  expect((await api('POST', '/users/@me/mfa/sms/enable', { token: user.token, body: { password: user.password } })).status).toBe(204);
  const key = new SoftAuthenticator();
  const start = await api('POST', '/users/@me/mfa/webauthn/credentials', { token: user.token, body: {} });
  expect(start.status, JSON.stringify(start.json)).toBe(200);
  const created = await api('POST', '/users/@me/mfa/webauthn/credentials', {
    token: user.token,
    body: { ticket: start.json.ticket, credential: key.create(start.json.challenge as string), name: 'Key' },
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  return { ...user, phone, key };
}

describe('reset password of an MFA account', () => {
  it('when the account has SMS and a security key, then the reset offers both, and an SMS code or the key completes it', async () => {
    const user = await userWithEveryFactor();
    const first = await mailedLinks(user.email, 1);
    expect(first.oneTime).toBeUndefined();
    const challenge = await api('POST', '/auth/reset', { body: { token: first.reset, password: NEW_PASSWORD } });
    expect(challenge.status, JSON.stringify(challenge.json)).toBe(200);
    expect(challenge.json).toEqual({
      user_id: expect.any(String),
      ticket: expect.any(String),
      mfa: true,
      totp: true,
      sms: true,
      backup: true,
      webauthn: expect.any(String),
    });
    const options = JSON.parse(challenge.json.webauthn as string) as { publicKey: { allowCredentials: { id: string }[] } };
    expect(options.publicKey.allowCredentials.map((c) => c.id)).toEqual([user.key.id]);

    const sent = await api('POST', '/auth/mfa/sms/send', { body: { ticket: challenge.json.ticket } });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    expect(sent.json).toEqual({ phone: `+*******${user.phone.slice(-4)}` });
    const viaSms = await api('POST', '/auth/reset', {
      body: {
        token: first.reset,
        password: NEW_PASSWORD,
        method: 'sms',
        ticket: challenge.json.ticket,
        code: await codeTextedTo(user.phone, 2),
      },
    });
    expect(viaSms.status, JSON.stringify(viaSms.json)).toBe(200);
    expect(viaSms.json).toEqual({ token: expect.any(String) });

    const second = await mailedLinks(user.email, 2);
    const again = await api('POST', '/auth/reset', { body: { token: second.reset, password: `${NEW_PASSWORD} 2` } });
    const viaKey = await api('POST', '/auth/reset', {
      body: {
        token: second.reset,
        password: `${NEW_PASSWORD} 2`,
        method: 'webauthn',
        ticket: again.json.ticket,
        code: user.key.get(again.json.webauthn as string),
      },
    });
    expect(viaKey.status, JSON.stringify(viaKey.json)).toBe(200);
    const login = await api('POST', '/auth/login', { body: { login: user.email, password: `${NEW_PASSWORD} 2` } });
    expect(login.json).toMatchObject({ mfa: true, sms: true, webauthn: expect.any(String) });
  });
});

describe('grants of reset mails', () => {
  it("when one mail's one-time login is used, then its reset link is dead; when its reset is used, then its one-time login is", async () => {
    const user = await newUser();
    const first = await mailedLinks(user.email, 1);
    const loggedIn = await api('POST', '/auth/one-time-login', { body: { ticket: first.oneTime } });
    expect(loggedIn.status, JSON.stringify(loggedIn.json)).toBe(200);
    const deadReset = await api('POST', '/auth/reset', { body: { token: first.reset, password: NEW_PASSWORD } });
    expect(deadReset.status).toBe(400);
    expect(fieldCode(deadReset.json, 'token')).toBe('TOKEN_INVALID');

    const second = await mailedLinks(user.email, 2);
    expect((await api('POST', '/auth/reset', { body: { token: second.reset, password: NEW_PASSWORD } })).status).toBe(200);
    const deadLogin = await api('POST', '/auth/one-time-login', { body: { ticket: second.oneTime } });
    expect(deadLogin.status).toBe(400);
    expect(fieldCode(deadLogin.json, 'ticket')).toBe('TOKEN_INVALID');
  });

  it('when the password is reset or changed, then every earlier mail stops working', async () => {
    const user = await newUser();
    const older = await mailedLinks(user.email, 1);
    const newer = await mailedLinks(user.email, 2);
    const reset = await api('POST', '/auth/reset', { body: { token: newer.reset, password: NEW_PASSWORD } });
    expect(reset.status).toBe(200);
    for (const [path, body, field] of [
      ['/auth/one-time-login', { ticket: older.oneTime }, 'ticket'],
      ['/auth/reset', { token: older.reset, password: 'yet another password' }, 'token'],
    ] as const) {
      const reply = await api('POST', path, { body });
      expect(reply.status).toBe(400);
      expect(fieldCode(reply.json, field)).toBe('TOKEN_INVALID');
    }

    // A change through the account settings ends them too.
    const token = reset.json.token as string;
    const third = await mailedLinks(user.email, 3);
    const change = { password: NEW_PASSWORD, new_password: 'the password after that' };
    const required = await api('PATCH', '/users/@me', { token, body: change });
    const finish = await api('POST', '/mfa/finish', {
      token,
      body: { ticket: (required.json.mfa as { ticket: string }).ticket, mfa_type: 'password', data: NEW_PASSWORD },
    });
    const changed = await api('PATCH', '/users/@me', {
      token,
      body: change,
      headers: { 'x-discord-mfa-authorization': finish.json.token as string },
    });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    const stale = await api('POST', '/auth/one-time-login', { body: { ticket: third.oneTime } });
    expect(fieldCode(stale.json, 'ticket')).toBe('TOKEN_INVALID');
  });
});
