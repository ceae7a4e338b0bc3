import { SnowflakeGenerator } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, expectFormError, fieldErrorCodes, registration, type Reply } from './auth.harness.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

const register = (body: unknown) => auth.request('POST', '/auth/register', { body });

describe('POST /auth/register', () => {
  it('when the body is valid, then 201 returns a token that reads the new user at GET /users/@me', async () => {
    const body = registration({ global_name: 'Alice A.' });
    const reply = await register(body);
    expect(reply.status).toBe(201);
    expect(reply.headers.get('content-type')).toContain('application/json');
    const { token } = reply.body as { token: string };
    expect(token).toEqual(expect.any(String));

    const me = await auth.request('GET', '/users/@me', { identity: await auth.identityOf(token) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: expect.stringMatching(/^\d{17,19}$/),
      username: body.username,
      global_name: 'Alice A.',
      discriminator: '0',
      email: body.email,
      verified: false,
      mfa_enabled: false,
      nsfw_allowed: true,
      locale: 'en-US',
      flags: 0,
      public_flags: 0,
    });
    expect(JSON.stringify(me.body)).not.toMatch(/argon2|password/);
  });

  it('when the username is taken, then 400 50035 with USERNAME_ALREADY_TAKEN on username', async () => {
    const first = await auth.register();
    expectFormError(await register(registration({ username: first.username })), { username: 'USERNAME_ALREADY_TAKEN' });
  });

  it('when an existing username differs only in case, then the new one is still taken', async () => {
    // The API accepts only lowercase usernames, so a mixed-case one can only be an older row; worker
    // 31 keeps this id apart from the service's own generator in this process.
    const legacy = `Legacy_${unique('')}`;
    await auth.db
      .insertInto('users')
      .values({
        id: new SnowflakeGenerator(31).next(),
        username: legacy,
        global_name: null,
        email: null,
        phone: null,
        password_hash: null,
        avatar: null,
        disabled_at: null,
        deleted_at: null,
      })
      .execute();
    expectFormError(await register(registration({ username: legacy.toLowerCase() })), { username: 'USERNAME_ALREADY_TAKEN' });
  });

  it('when the email is registered in another case, then EMAIL_ALREADY_REGISTERED on email', async () => {
    const first = await auth.register();
    expectFormError(await register(registration({ email: first.email.toUpperCase() })), { email: 'EMAIL_ALREADY_REGISTERED' });
  });

  it('when both username and email are taken, then both fields carry their error', async () => {
    const first = await auth.register();
    expectFormError(await register(registration({ username: first.username, email: first.email })), {
      username: 'USERNAME_ALREADY_TAKEN',
      email: 'EMAIL_ALREADY_REGISTERED',
    });
  });

  it('when the password is 7 or 73 characters, then BASE_TYPE_BAD_LENGTH on password', async () => {
    expectFormError(await register(registration({ password: 'a'.repeat(7) })), { password: 'BASE_TYPE_BAD_LENGTH' });
    expectFormError(await register(registration({ password: 'a'.repeat(73) })), { password: 'BASE_TYPE_BAD_LENGTH' });
  });

  it('when the password is 8 or 72 characters, then it is accepted and logs in', async () => {
    for (const password of ['p'.repeat(8), 'q'.repeat(72)]) {
      const account = await auth.register({ password });
      const login = await auth.request('POST', '/auth/login', { body: { login: account.email, password } });
      expect(login.status).toBe(200);
    }
  });

  it('when email and password are missing, then the account is unclaimed: 201, its token works, it has no email', async () => {
    const reply = await register(registration({ email: undefined, password: undefined }));
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const identity = await auth.identityOf((reply.body as { token: string }).token);
    const me = await auth.request<{ email: string | null }>('GET', '/users/@me', { identity });
    expect(me.body.email).toBeNull();
    const row = await auth.db
      .selectFrom('users')
      .select(['password_hash', 'email'])
      .where('id', '=', identity.userId!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ password_hash: null, email: null });
  });

  it('when neither username nor global_name is given, then the error is on username', async () => {
    expectFormError(await register(registration({ username: undefined })), { username: 'BASE_TYPE_REQUIRED' });
    expectFormError(await register(registration({ username: undefined, global_name: null })), { username: 'BASE_TYPE_REQUIRED' });
  });

  it('when only global_name is given, then a username is made from it', async () => {
    const stem = unique('g');
    const account = await auth.register({ username: undefined, global_name: `${stem.toUpperCase()} ✨` });
    const me = await auth.request<{ username: string; global_name: string }>('GET', '/users/@me', { identity: account.identity });
    expect(me.status).toBe(200);
    expect(me.body.username).toBe(stem);
    expect(me.body.global_name).toBe(`${stem.toUpperCase()} ✨`);
  });

  it('when the username made from global_name is taken, then digits are added to it', async () => {
    const taken = await auth.register();
    const account = await auth.register({ username: undefined, global_name: taken.username });
    const me = await auth.request<{ username: string }>('GET', '/users/@me', { identity: account.identity });
    expect(me.body.username).toMatch(new RegExp(`^${taken.username}\\d+$`));
    expect(me.body.username.length).toBeLessThanOrEqual(32);
  });

  it('when global_name has no usable characters, then the username is still valid', async () => {
    const account = await auth.register({ username: undefined, global_name: '✨✨' });
    const me = await auth.request<{ username: string }>('GET', '/users/@me', { identity: account.identity });
    expect(me.body.username).toMatch(/^user\d*$/);
  });

  it('when the email is malformed, then EMAIL_TYPE_INVALID_EMAIL', async () => {
    for (const email of ['not-an-email', 'a@', '@b.co', 'a b@c.co'])
      expectFormError(await register(registration({ email })), { email: 'EMAIL_TYPE_INVALID_EMAIL' });
  });

  it('when the username has uppercase or other characters, then USERNAME_INVALID_CHARACTERS', async () => {
    for (const username of ['Alice', 'al ice', 'al-ice', 'ali!ce', 'アリス'])
      expectFormError(await register(registration({ username })), { username: 'USERNAME_INVALID_CHARACTERS' });
  });

  it('when the username has consecutive periods or a bad length, then the matching code', async () => {
    expectFormError(await register(registration({ username: 'al..ice' })), { username: 'USERNAME_INVALID_CONSECUTIVE_PERIODS' });
    expectFormError(await register(registration({ username: 'a' })), { username: 'BASE_TYPE_BAD_LENGTH' });
    expectFormError(await register(registration({ username: 'a'.repeat(33) })), { username: 'BASE_TYPE_BAD_LENGTH' });
  });

  it('when date_of_birth is not a real past date, then DATE_TYPE_PARSE', async () => {
    const nextYear = `${new Date().getUTCFullYear() + 1}-01-01`;
    for (const date_of_birth of ['1990-13-01', '2001-02-30', '01/02/1990', 'yesterday', nextYear, '1800-01-01'])
      expectFormError(await register(registration({ date_of_birth })), { date_of_birth: 'DATE_TYPE_PARSE' });
  });

  it('when the body is not an object, then 50035 on the request itself, never a 500', async () => {
    for (const body of [[], 'x', 42, true]) {
      const reply = await register(body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 50035, message: 'Invalid Form Body' });
      expect(fieldErrorCodes(reply.body, '')).toEqual(['DICT_TYPE_CONVERT']);
    }
  });

  it('when a field has the wrong type, then its type error rather than a missing-field error', async () => {
    expectFormError(await register(registration({ password: 12345678, consent: 'yes' })), {
      password: 'BASE_TYPE_STRING',
      consent: 'BASE_TYPE_BAD_BOOLEAN',
    });
  });

  it('when the body is null or absent, then every required field is reported', async () => {
    for (const reply of [await register(null), await auth.request('POST', '/auth/register')])
      expectFormError(reply, { username: 'BASE_TYPE_REQUIRED' });
  });

  it('when the JSON is malformed, then 400 50109', async () => {
    const reply = await auth.request('POST', '/auth/register', { rawBody: '{"email": "a@b.co", ' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 50109, message: 'The request body contains invalid JSON.' });
  });

  it('when a registration fails, then it leaves no user behind', async () => {
    const body = registration();
    expectFormError(await register({ ...body, password: 'short' }), { password: 'BASE_TYPE_BAD_LENGTH' });
    const taken = await auth.register();
    expectFormError(await register({ ...body, email: taken.email }), { email: 'EMAIL_ALREADY_REGISTERED' });
    expect((await register(body)).status).toBe(201);
  });

  it('when 10 registrations race for one username, then exactly one wins and the rest are told it is taken', async () => {
    const username = unique('race');
    const bodies = Array.from({ length: 10 }, () => registration({ username }));
    const replies: Reply[] = await Promise.all(bodies.map((body) => register(body)));

    expect(replies.map((r) => r.status).sort()).toEqual([201, ...Array<number>(9).fill(400)]);
    for (const reply of replies.filter((r) => r.status === 400)) expectFormError(reply, { username: 'USERNAME_ALREADY_TAKEN' });

    // Only the winner's account exists: the losers' emails do not log in.
    const logins = await Promise.all(
      bodies.map((body) => auth.request('POST', '/auth/login', { body: { login: body.email, password: body.password } })),
    );
    expect(logins.map((r) => r.status)).toEqual(replies.map((r) => (r.status === 201 ? 200 : 400)));
  });

  it('when 5 registrations race for one email, then exactly one wins and the rest get EMAIL_ALREADY_REGISTERED', async () => {
    const email = `${unique('race')}@example.com`;
    const replies = await Promise.all(Array.from({ length: 5 }, () => register(registration({ email }))));
    expect(replies.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400]);
    for (const reply of replies.filter((r) => r.status === 400)) expectFormError(reply, { email: 'EMAIL_ALREADY_REGISTERED' });
  });
});
