import { StandingAction } from '@kith/proto/auth/v1/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../soft-authenticator.js';
import { AuthHarness, expectFormError } from './auth.harness.js';
import { codeAt, enrolledAccount, type EnrolledAccount } from './mfa.fixtures.js';

// Issue 17 item 14: account standing holds on every way into a session, not only password login.
// A suspended account meets the suspended-user 403 (its token in the body) after its second factor
// or passkey; a locked one the reset form error; required actions travel with every token.

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

const post = <T = unknown>(path: string, body: unknown) => auth.request<T>('POST', path, { body });
const standing = (userId: string, action: StandingAction) => auth.grpc.setAccountStanding({ userId, action, reason: 'test' });

/** Password login of an MFA account, then its TOTP code: the second answer. */
async function loginWithTotp(account: EnrolledAccount) {
  const login = await post<{ ticket: string; mfa: boolean }>('/auth/login', { login: account.email, password: account.password });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  expect(login.body.mfa).toBe(true);
  return post<Record<string, unknown>>('/auth/mfa/totp', { ticket: login.body.ticket, code: codeAt(account.secret, 1) });
}

/** A TOTP account with a discoverable credential of `key`. */
async function withPasskey(key: SoftAuthenticator) {
  const account = await enrolledAccount(auth);
  const start = await auth.request<{ ticket: string; challenge: string }>('POST', '/users/@me/mfa/webauthn/credentials', {
    identity: account.identity,
    body: {},
  });
  const created = await auth.request('POST', '/users/@me/mfa/webauthn/credentials', {
    identity: account.identity,
    body: { ticket: start.body.ticket, credential: key.create(start.body.challenge), name: 'Passkey' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return account;
}

async function passwordless(key: SoftAuthenticator) {
  const start = await post<{ ticket: string; challenge: string }>('/auth/passwordless/start', {});
  return post<Record<string, unknown>>('/auth/conditional/finish', {
    ticket: start.body.ticket,
    credential: key.get(start.body.challenge),
  });
}

describe('account standing past the second factor', () => {
  it('when a suspended MFA account logs in, then the password step answers the ticket and Verify MFA Login the 403 with a suspended user token', async () => {
    const account = await enrolledAccount(auth);
    await standing(account.userId, StandingAction.SUSPEND);
    const reply = await loginWithTotp(account);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ user_id: account.userId, suspended_user_token: expect.stringMatching(/^[\w-]{43}$/) });
    const hub = await post('/safety-hub/suspended/@me', { token: reply.body.suspended_user_token });
    expect(hub.status).toBe(200);
    expect(hub.body).toMatchObject({ account_standing: { state: 500 } });
  });

  it('when an MFA account must update its password, then Verify MFA Login answers required_actions with the token', async () => {
    const account = await enrolledAccount(auth);
    await standing(account.userId, StandingAction.REQUIRE_PASSWORD_UPDATE);
    const reply = await loginWithTotp(account);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ token: expect.any(String), user_settings: expect.any(Object), required_actions: ['update_password'] });
  });

  it('when a locked MFA account passes its second factor, then it is refused until its password is reset', async () => {
    const account = await enrolledAccount(auth);
    await standing(account.userId, StandingAction.FLAG_SUSPICIOUS);
    const reply = await loginWithTotp(account);
    expectFormError(reply, { login: 'ACCOUNT_COMPROMISED_RESET_PASSWORD', password: 'ACCOUNT_COMPROMISED_RESET_PASSWORD' });
  });
});

describe('account standing on passwordless login', () => {
  it('when a suspended account signs in with its passkey, then 403 with a suspended user token and no session', async () => {
    const key = new SoftAuthenticator();
    const account = await withPasskey(key);
    await standing(account.userId, StandingAction.SUSPEND);
    const reply = await passwordless(key);
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ user_id: account.userId, suspended_user_token: expect.stringMatching(/^[\w-]{43}$/) });
  });

  it('when an account that must update its password signs in with its passkey, then required_actions come with the token', async () => {
    const key = new SoftAuthenticator();
    const account = await withPasskey(key);
    await standing(account.userId, StandingAction.REQUIRE_PASSWORD_UPDATE);
    const reply = await passwordless(key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ user_id: account.userId, required_actions: ['update_password'] });
  });
});
