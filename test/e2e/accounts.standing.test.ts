import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createClient } from '@kith/platform';
import { AuthService, StandingAction } from '@kith/proto/auth/v1/auth';
import { api, fieldCode, newUser } from './client.js';
import { linkMailedTo } from './inbox.js';
import { portOffset } from './social.fixtures.js';

/**
 * Account standing (spec, Authentication 2 and 5; the login's required actions): what an operator
 * does with the `kith-operator` command or auth's SetAccountStanding, and what the user then meets
 * at login, with their old tokens and in the safety hub.
 */

const OPERATOR = fileURLToPath(new URL('../../services/auth/dist/operator.js', import.meta.url));
const RESET_LINK = /\/reset#token=([A-Za-z0-9_-]+)/;
const auth = createClient(AuthService, `127.0.0.1:${50051 + portOffset()}`, 5000);
afterAll(() => auth.close());

/** Runs the operator's command against the system under test; its exit code and output. */
async function operator(...args: string[]): Promise<{ code: number; out: string }> {
  const env = { ...process.env, SERVICE_TOKEN_KEY: inject('serviceTokenKey'), AUTH_GRPC_ADDR: `127.0.0.1:${50051 + portOffset()}` };
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [OPERATOR, ...args], { env, timeout: 15_000 });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: `${e.stdout}${e.stderr}${String(err)}` };
  }
}

async function account() {
  const user = await newUser();
  const me = await api('GET', '/users/@me', { token: user.token });
  return { ...user, id: me.json.id as string };
}

const login = (email: string, password: string) => api('POST', '/auth/login', { body: { login: email, password } });

describe('suspended accounts', () => {
  it('when an operator suspends an account, then its tokens stop, login answers 403 with a suspended user token, and that token opens only the safety hub', async () => {
    const user = await account();
    const done = await operator('suspend', user.id, 'Spam', 'links');
    expect(done).toEqual({ code: 0, out: expect.stringContaining('1 session(s) ended') });
    await expect.poll(async () => (await api('GET', '/users/@me', { token: user.token })).status).toBe(401);

    const refused = await login(user.email, user.password);
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ user_id: user.id, suspended_user_token: expect.stringMatching(/^[\w-]{43}$/) });
    const token = refused.json.suspended_user_token as string;
    // Never an authentication token: not in Authorization, anywhere.
    for (const path of ['/users/@me', '/safety-hub/@me', '/auth/sessions'])
      expect((await api('GET', path, { token })).status, path).toBe(401);

    const hub = await api('POST', '/safety-hub/suspended/@me', { body: { token } });
    expect(hub.status).toBe(200);
    expect(hub.json).toMatchObject({
      account_standing: { state: 500 },
      username: user.username,
      is_appeal_eligible: true,
      classifications: [{ description: 'Spam links', actions: [{ action_type: 0, descriptions: ['Spam links'] }] }],
      guild_classifications: [],
    });
    const [classification] = hub.json.classifications as { id: string }[];
    const review = await api('PUT', `/safety-hub/suspended/request-review/${classification!.id}`, {
      body: { token, signal: 1, user_input: 'it was not me' },
    });
    expect(review.status).toBe(200);
    expect(review.json.appeal_id).toMatch(/^\d{17,19}$/);
    const again = await api('PUT', `/safety-hub/suspended/request-review/${classification!.id}`, { body: { token, signal: 2 } });
    expect(again.json).toEqual(review.json);
    const after = await api('POST', '/safety-hub/suspended/@me', { body: { token } });
    expect(after.json).toMatchObject({ classifications: [{ appeal_status: { status: 1 } }], is_appeal_eligible: false });
  });

  it('when a suspended user token is wrong or the classification is not theirs, then 401 50014, 404 and 50035', async () => {
    const [user, other] = await Promise.all([account(), account()]);
    for (const u of [user, other]) await auth.setAccountStanding({ userId: u.id, action: StandingAction.SUSPEND, reason: '' });
    const token = (await login(user.email, user.password)).json.suspended_user_token as string;
    const otherToken = (await login(other.email, other.password)).json.suspended_user_token as string;
    const theirs = (
      (await api('POST', '/safety-hub/suspended/@me', { body: { token: otherToken } })).json.classifications as { id: string }[]
    )[0]!;
    const wrong = await api('POST', '/safety-hub/suspended/@me', { body: { token: `${token.slice(0, -2)}xx` } });
    expect([wrong.status, wrong.json.code]).toEqual([401, 50014]);
    const missing = await api('POST', '/safety-hub/suspended/@me', { body: {} });
    expect([missing.status, fieldCode(missing.json, 'token')]).toEqual([400, 'BASE_TYPE_REQUIRED']);
    const notTheirs = await api('PUT', `/safety-hub/suspended/request-review/${theirs.id}`, { body: { token, signal: 1 } });
    expect(notTheirs.status).toBe(404);
    const badSignal = await api('PUT', `/safety-hub/suspended/request-review/${theirs.id}`, { body: { token, signal: 'x' } });
    expect([badSignal.status, badSignal.json.code]).toEqual([400, 50035]);
  });

  it('when the suspension is lifted, then login works again and the hub shows good standing', async () => {
    const user = await account();
    await operator('suspend', user.id, 'mistake');
    expect((await login(user.email, user.password)).status).toBe(403);
    expect((await operator('lift', user.id)).code).toBe(0);
    const back = await login(user.email, user.password);
    expect(back.status).toBe(200);
    const hub = await api('GET', '/safety-hub/@me', { token: back.json.token as string });
    expect(hub.json).toMatchObject({ account_standing: { state: 100 }, classifications: [] });
  });
});

describe('locked accounts and required actions', () => {
  it('when a session is flagged suspicious, then every session ends and login is refused until the password is reset', async () => {
    const user = await account();
    const { sessionsEnded } = await auth.setAccountStanding({
      userId: user.id,
      action: StandingAction.FLAG_SUSPICIOUS,
      reason: 'odd login',
    });
    expect(sessionsEnded).toBe(1);
    // The edge drops its cached answer when it hears the session ended.
    await expect.poll(async () => (await api('GET', '/users/@me', { token: user.token })).status).toBe(401);
    const locked = await login(user.email, user.password);
    expect([locked.status, locked.json.code, fieldCode(locked.json, 'login')]).toEqual([400, 50035, 'ACCOUNT_COMPROMISED_RESET_PASSWORD']);
    expect((await api('POST', '/auth/forgot', { body: { login: user.email } })).status).toBe(200);
    const reset = await api('POST', '/auth/reset', {
      body: { token: await linkMailedTo(user.email, RESET_LINK), password: 'a brand new password' },
    });
    expect(reset.status).toBe(200);
    expect((await api('GET', '/users/@me', { token: reset.json.token as string })).status).toBe(200);
    expect((await login(user.email, 'a brand new password')).status).toBe(200);
  });

  it('when an operator requires a password update, then login names update_password until the password changes', async () => {
    const user = await account();
    expect((await operator('require-password-update', user.id)).code).toBe(0);
    const first = await login(user.email, user.password);
    expect(first.status).toBe(200);
    expect(first.json.required_actions).toEqual(['update_password']);
    const token = first.json.token as string;
    const change = { password: user.password, new_password: 'a stronger password now' };
    const required = await api('PATCH', '/users/@me', { token, body: change });
    const finish = await api('POST', '/mfa/finish', {
      token,
      body: { ticket: (required.json.mfa as { ticket: string }).ticket, mfa_type: 'password', data: user.password },
    });
    const changed = await api('PATCH', '/users/@me', {
      token,
      body: change,
      headers: { 'x-discord-mfa-authorization': finish.json.token as string },
    });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    const next = await login(user.email, 'a stronger password now');
    expect(next.status).toBe(200);
    expect(next.json).not.toHaveProperty('required_actions');
  });

  it('when the operator names an unknown user or a wrong action, then the command fails saying so and nothing changes', async () => {
    const unknown = await operator('suspend', '100000000000000001');
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain('10013');
    expect((await operator('banish', '1')).code).toBe(2);
    const user = await account();
    expect((await operator('suspend', 'abc')).code).toBe(2);
    expect((await login(user.email, user.password)).status).toBe(200);
    const bad = await auth.setAccountStanding({ userId: user.id, action: StandingAction.UNSPECIFIED, reason: '' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ body: { code: 50035 } });
  });
});
