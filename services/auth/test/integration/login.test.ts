import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, expectFormError } from './auth.harness.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

const login = (body: unknown) => auth.request('POST', '/auth/login', { body });
const INVALID_LOGIN = { login: 'INVALID_LOGIN', password: 'INVALID_LOGIN' };

describe('POST /auth/login', () => {
  it('when the email (in any case) and password are right, then user_id, a new token and user_settings', async () => {
    const account = await auth.register();
    const reply = await login({ login: account.email.toUpperCase(), password: account.password });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      user_id: account.userId,
      token: expect.any(String),
      user_settings: { locale: 'en-US', theme: 'dark' },
    });

    const { token } = reply.body as { token: string };
    expect(token).not.toBe(account.token);
    const identity = await auth.identityOf(token);
    expect(identity.userId).toBe(account.userId);
    expect(identity.sessionId).not.toBe(account.sessionId);
    const me = await auth.request('GET', '/users/@me', { identity });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: account.userId, username: account.username });
  });

  it('when the password is wrong, then 400 50035 with INVALID_LOGIN on login and password', async () => {
    const account = await auth.register();
    expectFormError(await login({ login: account.email, password: `${account.password}!` }), INVALID_LOGIN);
  });

  it('when no account has that email or phone, then the same INVALID_LOGIN answer', async () => {
    expectFormError(await login({ login: 'nobody-at-all@example.com', password: 'whatever123' }), INVALID_LOGIN);
    expectFormError(await login({ login: '+15550000000', password: 'whatever123' }), INVALID_LOGIN);
  });

  it('when login or password is missing, then BASE_TYPE_REQUIRED on each missing field', async () => {
    expectFormError(await login({}), { login: 'BASE_TYPE_REQUIRED', password: 'BASE_TYPE_REQUIRED' });
    expectFormError(await login({ login: 'someone@example.com' }), { password: 'BASE_TYPE_REQUIRED' });
    expectFormError(await auth.request('POST', '/auth/login'), { login: 'BASE_TYPE_REQUIRED', password: 'BASE_TYPE_REQUIRED' });
  });

  it('when login or password is empty, then a length error, not a lookup', async () => {
    expectFormError(await login({ login: '', password: '' }), { login: 'BASE_TYPE_MIN_LENGTH', password: 'BASE_TYPE_MIN_LENGTH' });
  });

  it('when the JSON is malformed, then 400 50109', async () => {
    const reply = await auth.request('POST', '/auth/login', { rawBody: '{"login":' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 50109, message: 'The request body contains invalid JSON.' });
  });

  it('when the account is disabled, then login answers 20013 and its sessions stop validating', async () => {
    const account = await auth.register();
    await auth.db.updateTable('users').set({ disabled_at: new Date() }).where('id', '=', account.userId).execute();
    const reply = await login({ login: account.email, password: account.password });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 20013, message: 'This account is disabled.' });
    expect((await auth.grpc.validateToken({ token: account.token })).valid).toBe(false);
  });

  it('when the account is scheduled for deletion, then login answers 20011', async () => {
    const account = await auth.register();
    await auth.db.updateTable('users').set({ deleted_at: new Date() }).where('id', '=', account.userId).execute();
    const reply = await login({ login: account.email, password: account.password });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 20011, message: 'This account is scheduled for deletion.' });
  });
});
