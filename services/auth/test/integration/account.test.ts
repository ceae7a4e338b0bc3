import { unique } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, PASSWORD, expectFormError, type Account } from './auth.harness.js';
import { codeAt, enrolledAccount, expectMfaRequired, finishMfa, proofForms } from './mfa.fixtures.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

interface Me {
  id: string;
  username: string;
  global_name: string | null;
  email: string;
  token?: string;
}

const patchMe = (account: Pick<Account, 'identity'>, body: unknown, headers: Record<string, string> = {}) =>
  auth.request<Me>('PATCH', '/users/@me', { identity: account.identity, body, headers });

/** Asks for the action, elevates with the password (the user has no MFA) and returns the JWT. */
async function elevateByPassword(account: Account, first: { status: number; body: unknown; headers: Headers }): Promise<string> {
  const required = expectMfaRequired(first, [{ type: 'password' }]);
  return (await finishMfa(auth, account.identity, required, 'password', account.password)).token;
}

describe('PATCH /users/@me', () => {
  it('when only the display name changes, then the updated user without password or elevation', async () => {
    const account = await auth.register();
    const reply = await patchMe(account, { global_name: 'Ada Lovelace' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: account.userId, global_name: 'Ada Lovelace', username: account.username });
    expect(reply.body.token).toBeUndefined();
  });

  it('when the username changes with the password, then the new username; without it, then 50035 on password', async () => {
    const account = await auth.register();
    const username = unique('n');
    expectFormError(await patchMe(account, { username }), { password: 'BASE_TYPE_REQUIRED' });
    expectFormError(await patchMe(account, { username, password: 'wrong password' }), { password: 'PASSWORD_DOES_NOT_MATCH' });
    const reply = await patchMe(account, { username, password: account.password });
    expect(reply.status).toBe(200);
    expect(reply.body.username).toBe(username);
  });

  it('when the username or email is taken, then the registration form errors', async () => {
    const account = await auth.register();
    const other = await auth.register();
    expectFormError(await patchMe(account, { username: other.username, password: account.password }), {
      username: 'USERNAME_ALREADY_TAKEN',
    });
    const jwt = await elevateByPassword(account, await patchMe(account, { email: other.email, password: account.password }));
    expectFormError(
      await patchMe(account, { email: other.email, password: account.password }, proofForms(jwt)['X-Discord-MFA-Authorization']),
      {
        email: 'EMAIL_ALREADY_REGISTERED',
      },
    );
  });

  it('when the body is invalid, then 50035 naming the fields', async () => {
    const account = await auth.register();
    expectFormError(await patchMe(account, { username: 'BadName', email: 'nope', new_password: 'short' }), {
      username: 'USERNAME_INVALID_CHARACTERS',
      email: 'EMAIL_TYPE_INVALID_EMAIL',
      new_password: 'BASE_TYPE_BAD_LENGTH',
    });
  });

  it('when the email changes, then 60003 first; after /mfa/finish the retry with the header changes it', async () => {
    const account = await auth.register();
    const email = `${unique('e')}@example.com`;
    const jwt = await elevateByPassword(account, await patchMe(account, { email, password: account.password }));
    const reply = await patchMe(account, { email, password: account.password }, proofForms(jwt)['X-Service-MFA-Authorization']);
    expect(reply.status).toBe(200);
    expect(reply.body.email).toBe(email);
  });

  it('when the password changes with elevation, then a new token, the other sessions end, and the new password logs in', async () => {
    const account = await auth.register();
    const other = await auth.login(account.email, account.password);
    const body = { password: account.password, new_password: 'a brand new password' };
    const jwt = await elevateByPassword(account, await patchMe(account, body));
    const reply = await patchMe(account, body, proofForms(jwt).cookie);
    expect(reply.status).toBe(200);
    expect(reply.body.token).toEqual(expect.any(String));
    await auth.identityOf(reply.body.token!);
    const revoked = reply.headers.get('x-internal-revoked-sessions')?.split(',') ?? [];
    expect(revoked.sort()).toEqual([account.sessionId, other.identity.sessionId].sort());
    expect((await auth.grpc.validateToken({ token: other.token })).valid).toBe(false);
    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(false);
    const old = await auth.request('POST', '/auth/login', { body: { login: account.email, password: account.password } });
    expect(old.status).toBe(400);
    await auth.login(account.email, 'a brand new password');
  });

  it('when the user has MFA, then the password change elevates with a TOTP code', async () => {
    const account = await enrolledAccount(auth);
    const body = { password: account.password, new_password: 'another new password' };
    const required = expectMfaRequired(await patchMe(account, body), [{ type: 'totp', backup_codes_allowed: true }]);
    const { token } = await finishMfa(auth, account.identity, required, 'totp', codeAt(account.secret, 1));
    expect((await patchMe(account, body, proofForms(token)['X-Discord-MFA-Authorization'])).status).toBe(200);
  });
});

describe('disable and delete', () => {
  for (const [action, loginCode] of [
    ['disable', 20013],
    ['delete', 20011],
  ] as const) {
    it(`when ${action} is elevated and confirmed, then 204, sessions end, login answers ${loginCode}, and undelete restores`, async () => {
      const account = await auth.register();
      const path = `/users/@me/${action}`;
      const first = await auth.request('POST', path, { identity: account.identity, body: { password: account.password } });
      const jwt = await elevateByPassword(account, first);
      const wrong = await auth.request('POST', path, {
        identity: account.identity,
        body: { password: 'wrong' },
        headers: proofForms(jwt).cookie,
      });
      expect(wrong.body).toMatchObject({ code: 50018 });
      const reply = await auth.request('POST', path, {
        identity: account.identity,
        body: { password: account.password },
        headers: proofForms(jwt)['X-Discord-MFA-Authorization'],
      });
      expect(reply.status).toBe(204);
      expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(false);
      const refused = await auth.request('POST', '/auth/login', { body: { login: account.email, password: PASSWORD } });
      expect(refused.body).toMatchObject({ code: loginCode });
      const restored = await auth.request<{ token: string }>('POST', '/auth/login', {
        body: { login: account.email, password: PASSWORD, undelete: true },
      });
      expect(restored.status).toBe(200);
      await auth.identityOf(restored.body.token);
      await auth.login(account.email, PASSWORD);
    });
  }

  it('when an MFA account is undeleted, then it is restored only after the second factor', async () => {
    const account = await enrolledAccount(auth);
    const required = expectMfaRequired(
      await auth.request('POST', '/users/@me/delete', { identity: account.identity, body: { password: account.password } }),
      [{ type: 'totp', backup_codes_allowed: true }],
    );
    const { token } = await finishMfa(auth, account.identity, required, 'totp', codeAt(account.secret, 1));
    const deleted = await auth.request('POST', '/users/@me/delete', {
      identity: account.identity,
      body: { password: account.password },
      headers: proofForms(token)['X-Service-MFA-Authorization'],
    });
    expect(deleted.status).toBe(204);
    const challenge = await auth.request<{ ticket: string; mfa: boolean }>('POST', '/auth/login', {
      body: { login: account.email, password: account.password, undelete: true },
    });
    expect(challenge.body.mfa).toBe(true);
    expect((await auth.request('POST', '/auth/login', { body: { login: account.email, password: account.password } })).body).toMatchObject({
      code: 20011,
    });
    const done = await auth.request('POST', '/auth/mfa/backup', {
      body: { ticket: challenge.body.ticket, code: account.backupCodes[0]!.code },
    });
    expect(done.status).toBe(200);
    expect(
      (await auth.request<{ mfa: boolean }>('POST', '/auth/login', { body: { login: account.email, password: account.password } })).body
        .mfa,
    ).toBe(true);
  });
});
