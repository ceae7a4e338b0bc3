import { createRedis, type Redis } from '@kith/platform';
import type { TestStores } from '@kith/platform/testing';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Grants } from '../../services/auth/src/domain/recovery/grants.js';
import { RedisValues } from '../../services/auth/src/store/redis.store.js';
import { api, newUser } from './client.js';
import { GatewayClient } from './ws-client.js';

declare module 'vitest' {
  export interface ProvidedContext {
    stores: TestStores;
  }
}

/** A fresh authenticator-app secret (160 bits, base32). */
const newSecret = (): string => new Secret({ size: 20 }).base32;
const STEP_MS = 30_000;
const codeOfStep = (secret: string, step: number): string =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: step * STEP_MS });

/**
 * A code auth will take: auth accepts the steps either side of now, each once per user, so this
 * picks one of them the user has not spent yet (whatever step boundaries passed meanwhile).
 */
function freshCode(user: { secret: string; usedSteps: Set<number> }): string {
  const now = Math.floor(Date.now() / STEP_MS);
  const step = [now + 1, now, now - 1].find((s) => !user.usedSteps.has(s))!;
  user.usedSteps.add(step);
  return codeOfStep(user.secret, step);
}

/** A registered user with TOTP on, enrolled through the gateway with the current step's code. */
async function totpUser() {
  const user = await newUser();
  const secret = newSecret();
  const usedSteps = new Set<number>();
  const enabled = await api('POST', '/users/@me/mfa/totp/enable', {
    token: user.token,
    body: { password: user.password, secret, code: freshCode({ secret, usedSteps }) },
  });
  expect(enabled.status, JSON.stringify(enabled.json)).toBe(200);
  expect(enabled.json.backup_codes).toHaveLength(10);
  // Enabling MFA ends the other sessions and answers a new token for this one.
  return { ...user, secret, usedSteps, token: enabled.json.token as string };
}

describe('MFA through the gateway', () => {
  it('when a TOTP user logs in, then a ticket first, the code then a token; a wrong code is 60008 and the ticket survives it', async () => {
    const user = await totpUser();
    const login = await api('POST', '/auth/login', { body: { login: user.email, password: user.password } });
    expect(login.status).toBe(200);
    expect(login.json).toMatchObject({ user_id: expect.any(String), mfa: true, totp: true, sms: false, ticket: expect.any(String) });
    expect(login.json.token).toBeUndefined();

    const wrong = await api('POST', '/auth/mfa/totp', { body: { ticket: login.json.ticket, code: '000000' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ code: 60008 });

    const finished = await api('POST', '/auth/mfa/totp', { body: { ticket: login.json.ticket, code: freshCode(user) } });
    expect(finished.status, JSON.stringify(finished.json)).toBe(200);
    const me = await api('GET', '/users/@me', { token: finished.json.token as string });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ email: user.email, mfa_enabled: true, authenticator_types: [2] });
  });

  it('when a sensitive change answers 60003, then /mfa/finish gives a JWT that X-Discord-MFA-Authorization carries to complete it', async () => {
    const user = await totpUser();
    const newEmail = `new_${user.email}`;
    const change = { email: newEmail, password: user.password };
    const required = await api('PATCH', '/users/@me', { token: user.token, body: change });
    expect(required.status).toBe(401);
    expect(required.json).toEqual({
      code: 60003,
      message: 'Two factor is required for this operation',
      mfa: { ticket: expect.any(String), methods: [{ type: 'totp', backup_codes_allowed: true }] },
    });
    const ticket = (required.json.mfa as { ticket: string }).ticket;

    // A forged or missing proof is refused the same way: nothing changed.
    const forged = await api('PATCH', '/users/@me', {
      token: user.token,
      body: change,
      headers: { 'x-discord-mfa-authorization': 'a.b.c' },
    });
    expect(forged.json.code).toBe(60003);

    const finish = await api('POST', '/mfa/finish', {
      token: user.token,
      body: { ticket, mfa_type: 'totp', data: freshCode(user) },
    });
    expect(finish.status, JSON.stringify(finish.json)).toBe(200);
    const jwt = finish.json.token as string;
    expect(jwt.split('.')).toHaveLength(3);

    const done = await api('PATCH', '/users/@me', { token: user.token, body: change, headers: { 'x-discord-mfa-authorization': jwt } });
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    expect(done.json.email).toBe(newEmail);
    // The JWT is this user's only.
    const other = await newUser();
    const foreign = await api('PATCH', '/users/@me', {
      token: other.token,
      body: { email: `new_${other.email}`, password: other.password },
      headers: { 'x-discord-mfa-authorization': jwt },
    });
    expect(foreign.json.code).toBe(60003);
  });
});

describe('USER_UPDATE through the gateway', () => {
  it('when the user changes their display name, then their socket gets USER_UPDATE with the user as /users/@me shows it', async () => {
    const user = await newUser();
    const socket = await GatewayClient.connect(user.token);
    const renamed = await api('PATCH', '/users/@me', { token: user.token, body: { global_name: 'Renamed Through E2E' } });
    expect(renamed.status).toBe(200);
    const before = await socket.takeThrough((d) => d.t === 'USER_UPDATE');
    expect(before.filter((d) => d.t === 'USER_UPDATE')).toEqual([]);
    const update = socket.dispatches().find((d) => d.t === 'USER_UPDATE')!;
    const me = await api('GET', '/users/@me', { token: user.token });
    expect(update.d).toEqual(me.json);
    expect(update.d.global_name).toBe('Renamed Through E2E');
    socket.close();
  });
});

describe('password reset through the gateway', () => {
  let redis: Redis;

  beforeAll(() => {
    // The e2e system mails into its log (no SMTP server), so the mailed reset link is not reachable
    // from here: the test issues the grant the forgot request mailed with auth's own code, into
    // auth's Redis under the prefix the system gave it (scripts/processes.mjs), exactly as that request stores it.
    redis = createRedis(inject('stores').REDIS_URL, `${inject('dbPrefix')}:auth:`);
  });

  afterAll(async () => {
    await redis?.quit();
  });

  it('when the password is reset, then the live socket of the old session closes with 4004 and only the new token works', async () => {
    const user = await newUser();
    const me = await api('GET', '/users/@me', { token: user.token });
    const socket = await GatewayClient.connect(user.token);

    const forgot = await api('POST', '/auth/forgot', { body: { login: user.email } });
    expect(forgot.status).toBe(200);
    expect(forgot.json).toEqual({ method: 'one_time_login' });
    const resetToken = await new Grants(new RedisValues(redis)).issue('reset', { userId: me.json.id as string });

    const reset = await api('POST', '/auth/reset', { body: { token: resetToken, password: 'a brand new password' } });
    expect(reset.status, JSON.stringify(reset.json)).toBe(200);
    expect(reset.json).toEqual({ token: expect.any(String) });

    expect(await socket.closed).toBe(4004);
    expect((await api('GET', '/users/@me', { token: user.token })).status).toBe(401);
    expect((await api('GET', '/users/@me', { token: reset.json.token as string })).status).toBe(200);
    const oldPassword = await api('POST', '/auth/login', { body: { login: user.email, password: user.password } });
    expect(oldPassword.status).toBe(400);
    expect((await api('POST', '/auth/login', { body: { login: user.email, password: 'a brand new password' } })).status).toBe(200);

    // The reset token went with the reset.
    const again = await api('POST', '/auth/reset', { body: { token: resetToken, password: 'yet another password' } });
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ code: 50035 });
  });
});
