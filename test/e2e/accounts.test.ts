import { describe, expect, inject, it } from 'vitest';
import { api, fieldCode, newUser, uniqueName } from './client.js';

const UNAUTHORIZED = { code: 0, message: '401: Unauthorized' };

describe('a new user, through the gateway', () => {
  it('when they register, log in, read themselves and their sessions, and log one session out, then its token is refused at once', async () => {
    const { email, password, username, token: registrationToken } = await newUser();

    const login = await api('POST', '/auth/login', {
      body: { login: email.toUpperCase(), password },
      headers: { 'x-super-properties': Buffer.from(JSON.stringify({ os: 'Linux', browser: 'Firefox' })).toString('base64') },
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('content-type')).toMatch(/^application\/json/);
    expect(login.json).toMatchObject({
      user_id: expect.stringMatching(/^\d{17,19}$/),
      token: expect.any(String),
      user_settings: { locale: 'en-US', theme: 'dark' },
    });
    const token = login.json.token as string;

    const me = await api('GET', '/users/@me', { token });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ id: login.json.user_id, username, email, discriminator: '0', mfa_enabled: false, verified: false });

    const sessions = await api('GET', '/auth/sessions', { token });
    expect(sessions.status).toBe(200);
    const list = sessions.json.user_sessions as { id_hash: string; approx_last_used_time: string; client_info: Record<string, unknown> }[];
    expect(list).toHaveLength(2);
    for (const s of list) expect(Date.parse(s.approx_last_used_time)).not.toBeNaN();
    const firefox = list.find((s) => s.client_info.platform === 'Firefox');
    expect(firefox?.client_info).toMatchObject({ os: 'Linux', platform: 'Firefox' });
    const other = list.find((s) => s !== firefox)!;

    // Log the registration session out from the login session: its token stops at once.
    expect((await api('GET', '/users/@me', { token: registrationToken })).status).toBe(200);
    const logout = await api('POST', '/auth/sessions/logout', { token, body: { session_id_hashes: [other.id_hash] } });
    expect(logout.status).toBe(204);
    expect([...logout.headers.keys()].filter((h) => h.startsWith('x-internal-'))).toEqual([]);
    const refused = await api('GET', '/users/@me', { token: registrationToken });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual(UNAUTHORIZED);

    const remaining = await api('GET', '/auth/sessions', { token });
    expect((remaining.json.user_sessions as unknown[]).length).toBe(1);

    // And logging out the current session ends it too.
    expect((await api('POST', '/auth/logout', { token, body: {} })).status).toBe(204);
    expect((await api('GET', '/users/@me', { token })).status).toBe(401);
  });

  it('when the same request is sent to /api/v10 and /api, then it is served alike', async () => {
    const { token } = await newUser();
    const v9 = await api('GET', '/users/@me', { token });
    const origin = inject('gatewayOrigin');
    for (const prefix of ['/api/v10', '/api']) {
      const res = await api('GET', '/users/@me', { token, base: `${origin}${prefix}` });
      expect(res.status).toBe(200);
      expect(res.json.id).toBe(v9.json.id);
    }
  });
});

describe('registration failures', () => {
  it('when the username is taken (in any case), then 50035 USERNAME_ALREADY_TAKEN', async () => {
    const { username } = await newUser();
    const res = await api('POST', '/auth/register', {
      body: { username, email: `${uniqueName()}@example.com`, password: 'long enough pw' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 50035, message: 'Invalid Form Body' });
    expect(fieldCode(res.json, 'username')).toBe('USERNAME_ALREADY_TAKEN');
  });

  it('when the email is registered already, then 50035 EMAIL_ALREADY_REGISTERED', async () => {
    const { email } = await newUser();
    const res = await api('POST', '/auth/register', {
      body: { username: uniqueName(), email: email.toUpperCase(), password: 'long enough pw' },
    });
    expect(res.status).toBe(400);
    expect(fieldCode(res.json, 'email')).toBe('EMAIL_ALREADY_REGISTERED');
  });

  it.each([
    ['7', 'x'.repeat(7)],
    ['73', 'x'.repeat(73)],
  ])('when the password has %s characters, then 50035 BASE_TYPE_BAD_LENGTH on password', async (_n, password) => {
    const res = await api('POST', '/auth/register', { body: { username: uniqueName(), email: `${uniqueName()}@example.com`, password } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe(50035);
    expect(fieldCode(res.json, 'password')).toBe('BASE_TYPE_BAD_LENGTH');
  });

  it('when neither a username nor a display name is given, then username answers BASE_TYPE_REQUIRED (email and password may be left out)', async () => {
    const res = await api('POST', '/auth/register', { body: {} });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe(50035);
    expect(Object.keys(res.json.errors ?? {})).toEqual(['username']);
    expect(fieldCode(res.json, 'username')).toBe('BASE_TYPE_REQUIRED');
  });

  it('when the body is not JSON, then 400 with code 50109 and nothing is created', async () => {
    const username = uniqueName();
    const res = await api('POST', '/auth/register', { raw: `{"username":"${username}",` });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: 50109, message: 'The request body contains invalid JSON.' });
  });
});

describe('login failures', () => {
  it('when the password is wrong, then 50035 INVALID_LOGIN on login and password', async () => {
    const { email } = await newUser();
    const res = await api('POST', '/auth/login', { body: { login: email, password: 'not the password' } });
    expect(res.status).toBe(400);
    expect(fieldCode(res.json, 'login')).toBe('INVALID_LOGIN');
    expect(fieldCode(res.json, 'password')).toBe('INVALID_LOGIN');
  });

  it('when the login is unknown, then the same answer as a wrong password', async () => {
    const res = await api('POST', '/auth/login', { body: { login: `${uniqueName()}@example.com`, password: 'whatever123' } });
    expect(res.status).toBe(400);
    expect(fieldCode(res.json, 'login')).toBe('INVALID_LOGIN');
    expect(fieldCode(res.json, 'password')).toBe('INVALID_LOGIN');
  });

  it('when the login fields are missing, then BASE_TYPE_REQUIRED', async () => {
    const res = await api('POST', '/auth/login', { body: {} });
    expect(res.status).toBe(400);
    expect(fieldCode(res.json, 'login')).toBe('BASE_TYPE_REQUIRED');
    expect(fieldCode(res.json, 'password')).toBe('BASE_TYPE_REQUIRED');
  });
});

describe('edge failures', () => {
  it('when the route is unknown, then 404 with the platform body', async () => {
    const res = await api('GET', '/definitely/not/a/route');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ code: 0, message: '404: Not Found' });
  });

  it('when a path under a served group is not a route of its service, then 404 like any unknown route', async () => {
    const { token } = await newUser();
    // The edge forwards /users/@me/* to auth, which has no such route.
    const res = await api('GET', '/users/@me/no-such-thing', { token });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ code: 0, message: '404: Not Found' });
  });

  it('when no token is sent to an authenticated route, then 401', async () => {
    const res = await api('GET', '/users/@me');
    expect(res.status).toBe(401);
    expect(res.json).toEqual(UNAUTHORIZED);
  });

  it.each(['garbage', 'Bot garbage', 'MTIz.AAAA.BBBB', 'x'.repeat(2000)])(
    'when the token is %#-th kind of garbage, then 401',
    async (token) => {
      const res = await api('GET', '/users/@me', { token });
      expect(res.status).toBe(401);
      expect(res.json).toEqual(UNAUTHORIZED);
    },
  );

  it('when a client forges X-Internal-Identity, then it is ignored and the request is anonymous', async () => {
    const victim = await newUser();
    const me = await api('GET', '/users/@me', { token: victim.token });
    const forged = Buffer.from(JSON.stringify({ sub: me.json.id })).toString('base64url');
    const res = await api('GET', '/users/@me', {
      headers: { 'x-internal-identity': `eyJhbGciOiJub25lIn0.${forged}.`, 'x-internal-user-id': String(me.json.id) },
    });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(UNAUTHORIZED);
  });
});
