import { createClient, ApiError } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness } from './auth.harness.js';
import { codeAt, enrolledAccount, expectMfaRequired, finishMfa, newSecret, proofForms, type BackupCode } from './mfa.fixtures.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start({ MFA_TICKET_MAX_ATTEMPTS: 3 });
});

afterAll(async () => {
  await auth?.close();
});

interface Challenge {
  user_id: string;
  mfa: boolean;
  ticket: string;
  login_instance_id: string;
  token?: string;
}

async function loginChallenge(email: string, password: string): Promise<Challenge> {
  const reply = await auth.request<Challenge>('POST', '/auth/login', { body: { login: email, password } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

const mfaLogin = (type: string, body: Record<string, unknown>) =>
  auth.request<{ token: string; user_settings: unknown; code?: number }>('POST', `/auth/mfa/${type}`, { body });

describe('TOTP enrollment', () => {
  it('when password, secret and code are right, then a new token, ten backup codes, and /users/@me shows MFA', async () => {
    const account = await auth.register();
    const secret = newSecret();
    const reply = await auth.request<{ token: string; backup_codes: BackupCode[] }>('POST', '/users/@me/mfa/totp/enable', {
      identity: account.identity,
      body: { password: account.password, secret, code: codeAt(secret) },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.token).not.toBe(account.token);
    expect(reply.body.backup_codes).toHaveLength(10);
    for (const c of reply.body.backup_codes)
      expect(c).toEqual({ user_id: account.userId, code: expect.stringMatching(/^[a-z0-9]{8}$/), consumed: false });
    const identity = await auth.identityOf(reply.body.token);
    const me = await auth.request<{ mfa_enabled: boolean; authenticator_types: number[] }>('GET', '/users/@me', { identity });
    expect(me.body).toMatchObject({ mfa_enabled: true, authenticator_types: [2] });
    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(false);
  });

  it('when the password is wrong, then 50018; no secret, then 60005; a bad secret, then 60005; a wrong code, then 60008', async () => {
    const account = await auth.register();
    const secret = newSecret();
    const enable = (body: Record<string, unknown>) =>
      auth.request('POST', '/users/@me/mfa/totp/enable', { identity: account.identity, body });
    expect((await enable({ password: 'wrong password', secret, code: codeAt(secret) })).body).toMatchObject({ code: 50018 });
    expect((await enable({ password: account.password })).body).toMatchObject({ code: 60005 });
    expect((await enable({ password: account.password, secret: 'NOTBASE32!!', code: codeAt(secret) })).body).toMatchObject({ code: 60005 });
    expect((await enable({ password: account.password, secret, code: codeAt(secret, 5) })).body).toMatchObject({ code: 60008 });
    const me = await auth.request<{ mfa_enabled: boolean }>('GET', '/users/@me', { identity: account.identity });
    expect(me.body.mfa_enabled).toBe(false);
  });

  it('when already enrolled, then 60001', async () => {
    const account = await enrolledAccount(auth);
    const secret = newSecret();
    const reply = await auth.request('POST', '/users/@me/mfa/totp/enable', {
      identity: account.identity,
      body: { password: account.password, secret, code: codeAt(secret) },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 60001 });
  });
});

describe('login with MFA', () => {
  it('when the user has TOTP, then login answers a ticket and no token; /auth/mfa/totp then answers a working token', async () => {
    const account = await enrolledAccount(auth);
    const challenge = await loginChallenge(account.email, account.password);
    expect(challenge).toEqual({
      user_id: account.userId,
      mfa: true,
      ticket: expect.any(String),
      login_instance_id: expect.any(String),
      totp: true,
      sms: false,
      backup: true,
      webauthn: null,
    });
    const reply = await mfaLogin('totp', {
      ticket: challenge.ticket,
      code: codeAt(account.secret, 1),
      login_instance_id: challenge.login_instance_id,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.user_settings).toEqual({ locale: 'en-US', theme: 'dark' });
    const identity = await auth.identityOf(reply.body.token);
    expect(identity.userId).toBe(account.userId);
  });

  it('when the same TOTP code is used again in its step, then 60008', async () => {
    const account = await enrolledAccount(auth);
    const code = codeAt(account.secret, 1);
    const first = await loginChallenge(account.email, account.password);
    expect((await mfaLogin('totp', { ticket: first.ticket, code })).status).toBe(200);
    const second = await loginChallenge(account.email, account.password);
    expect((await mfaLogin('totp', { ticket: second.ticket, code })).body).toMatchObject({ code: 60008 });
  });

  it('when a ticket was used, then 60006', async () => {
    const account = await enrolledAccount(auth);
    const challenge = await loginChallenge(account.email, account.password);
    expect((await mfaLogin('totp', { ticket: challenge.ticket, code: codeAt(account.secret, 1) })).status).toBe(200);
    expect((await mfaLogin('backup', { ticket: challenge.ticket, code: account.backupCodes[0]!.code })).body).toMatchObject({
      code: 60006,
    });
  });

  it('when a backup code is used, then it logs in once; its reuse answers 60008', async () => {
    const account = await enrolledAccount(auth);
    const code = account.backupCodes[3]!.code;
    const first = await loginChallenge(account.email, account.password);
    const ok = await mfaLogin('backup', { ticket: first.ticket, code });
    expect(ok.status).toBe(200);
    await auth.identityOf(ok.body.token);
    const second = await loginChallenge(account.email, account.password);
    expect((await mfaLogin('backup', { ticket: second.ticket, code })).body).toMatchObject({ code: 60008 });
  });

  it('when the code is wrong, then 60008; after the attempts run out, then 60006 even with the right code', async () => {
    const account = await enrolledAccount(auth);
    const challenge = await loginChallenge(account.email, account.password);
    for (let i = 0; i < 3; i++) {
      const reply = await mfaLogin('totp', { ticket: challenge.ticket, code: '000000' });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 60008 });
    }
    expect((await mfaLogin('totp', { ticket: challenge.ticket, code: codeAt(account.secret, 1) })).body).toMatchObject({ code: 60006 });
  });

  it('when the login instance differs or the ticket is unknown, then 60006', async () => {
    const account = await enrolledAccount(auth);
    const challenge = await loginChallenge(account.email, account.password);
    const code = codeAt(account.secret, 1);
    expect((await mfaLogin('totp', { ticket: challenge.ticket, code, login_instance_id: 'another' })).body).toMatchObject({ code: 60006 });
    expect((await mfaLogin('totp', { ticket: 'unknown.ticket', code })).body).toMatchObject({ code: 60006 });
  });

  it('when the ticket expired, then 60006', async () => {
    const shortLived = await AuthHarness.start({ MFA_TICKET_TTL_SECONDS: 1 });
    try {
      const account = await enrolledAccount(shortLived);
      const login = await shortLived.request<Challenge>('POST', '/auth/login', {
        body: { login: account.email, password: account.password },
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const reply = await shortLived.request('POST', '/auth/mfa/totp', {
        body: { ticket: login.body.ticket, code: codeAt(account.secret, 1) },
      });
      expect(reply.body).toMatchObject({ code: 60006 });
    } finally {
      await shortLived.close();
    }
  });

  it('when the type is sms without SMS MFA or webauthn, then 60008; an unknown body, then 50035', async () => {
    const account = await enrolledAccount(auth);
    const challenge = await loginChallenge(account.email, account.password);
    for (const type of ['sms', 'webauthn']) {
      const reply = await mfaLogin(type, { ticket: challenge.ticket, code: '123456' });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 60008 });
    }
    expect((await mfaLogin('totp', {})).body).toMatchObject({ code: 50035 });
  });
});

describe('elevation', () => {
  it('when viewing backup codes without elevation, then 60003; after /mfa/finish each header form and the cookie work', async () => {
    const account = await enrolledAccount(auth);
    const view = (headers: Record<string, string> = {}) =>
      auth.request<{ backup_codes: BackupCode[] }>('POST', '/users/@me/mfa/codes-verification', {
        identity: account.identity,
        headers,
        body: { regenerate: false },
      });
    const required = expectMfaRequired(await view(), [{ type: 'totp', backup_codes_allowed: true }]);
    const { token, cookie } = await finishMfa(auth, account.identity, required, 'totp', codeAt(account.secret, 1));
    expect(cookie).toBe(`__Secure-recent_mfa=${token}; Max-Age=300; Path=/; Secure; HttpOnly; SameSite=Strict`);
    for (const [form, headers] of Object.entries(proofForms(token))) {
      const reply = await view(headers);
      expect(reply.status, form).toBe(200);
      expect(reply.body.backup_codes.map((c) => c.code)).toEqual(account.backupCodes.map((c) => c.code));
    }
  });

  it('when regenerating backup codes with elevation by a backup code, then new codes and the old ones are dead', async () => {
    const account = await enrolledAccount(auth);
    const regenerate = (headers: Record<string, string> = {}) =>
      auth.request<{ backup_codes: BackupCode[] }>('POST', '/users/@me/mfa/codes-verification', {
        identity: account.identity,
        headers,
        body: { regenerate: true },
      });
    const required = expectMfaRequired(await regenerate(), [{ type: 'totp', backup_codes_allowed: true }]);
    const { token } = await finishMfa(auth, account.identity, required, 'backup', account.backupCodes[0]!.code);
    const reply = await regenerate(proofForms(token)['X-Service-MFA-Authorization']);
    expect(reply.status).toBe(200);
    const fresh = reply.body.backup_codes.map((c) => c.code);
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(account.backupCodes[1]!.code);
    const challenge = await loginChallenge(account.email, account.password);
    expect((await mfaLogin('backup', { ticket: challenge.ticket, code: account.backupCodes[1]!.code })).body).toMatchObject({
      code: 60008,
    });
    expect((await mfaLogin('backup', { ticket: challenge.ticket, code: fresh[0] })).status).toBe(200);
  });

  it('when disabling TOTP without elevation, then 60003; with it, then a new token and login needs no MFA; again, then 60002', async () => {
    const account = await enrolledAccount(auth);
    const disable = (headers: Record<string, string> = {}) =>
      auth.request<{ token: string }>('POST', '/users/@me/mfa/totp/disable', { identity: account.identity, headers, body: {} });
    const required = expectMfaRequired(await disable(), [{ type: 'totp', backup_codes_allowed: true }]);
    const { token: jwt } = await finishMfa(auth, account.identity, required, 'totp', codeAt(account.secret, 1));
    const reply = await disable(proofForms(jwt).cookie);
    expect(reply.status).toBe(200);
    const identity = await auth.identityOf(reply.body.token);
    const me = await auth.request<{ mfa_enabled: boolean; authenticator_types: number[] }>('GET', '/users/@me', { identity });
    expect(me.body).toMatchObject({ mfa_enabled: false, authenticator_types: [] });
    await auth.login(account.email, account.password);
    expect((await disable(proofForms(jwt).cookie)).body).toMatchObject({ code: 60002 });
  });

  it("when /mfa/finish gets a wrong code, then 60008; another user's ticket, then 60006", async () => {
    const account = await enrolledAccount(auth);
    const other = await auth.register();
    const reply = await auth.request('POST', '/users/@me/mfa/codes-verification', { identity: account.identity, body: {} });
    const required = expectMfaRequired(reply, [{ type: 'totp', backup_codes_allowed: true }]);
    const wrong = await auth.request('POST', '/mfa/finish', {
      identity: account.identity,
      body: { ticket: required.mfa.ticket, mfa_type: 'totp', data: '000000' },
    });
    expect(wrong.body).toMatchObject({ code: 60008 });
    const stolen = await auth.request('POST', '/mfa/finish', {
      identity: other.identity,
      body: { ticket: required.mfa.ticket, mfa_type: 'password', data: other.password },
    });
    expect(stolen.body).toMatchObject({ code: 60006 });
  });

  it('when another service calls CheckMfaElevation, then 60003 with the body without a token, and OK with the /mfa/finish JWT of that session only', async () => {
    const account = await auth.register();
    const client = createClient(AuthService, `127.0.0.1:${auth.grpcPort}`);
    try {
      const ask = { userId: account.userId, sessionId: account.sessionId };
      const err = (await client.checkMfaElevation({ ...ask, elevationToken: '' }).catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(401);
      const required = expectMfaRequired({ status: err.status, body: err.body, headers: new Headers() }, [{ type: 'password' }]);
      const { token } = await finishMfa(auth, account.identity, required, 'password', account.password);
      expect(await client.checkMfaElevation({ ...ask, elevationToken: token })).toEqual(expect.objectContaining({}));
      const other = await auth.register();
      await expect(
        client.checkMfaElevation({ userId: other.userId, sessionId: other.sessionId, elevationToken: token }),
      ).rejects.toMatchObject({
        status: 401,
      });
      // Another session of the same user, or a call naming no session, is not elevated by it.
      const second = await auth.login(account.email, account.password);
      for (const sessionId of [second.identity.sessionId!, ''])
        await expect(client.checkMfaElevation({ userId: account.userId, sessionId, elevationToken: token })).rejects.toMatchObject({
          status: 401,
        });
    } finally {
      client.close();
    }
  });
});
