import { unique } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness, expectFormError, registration } from './auth.harness.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

const GB_IP = '81.2.69.142';
const US_IP = '8.8.8.8';

describe('GET /auth/location-metadata', () => {
  it('when the caller is in the United Kingdom, then consent and an unchecked promotional opt-in are required', async () => {
    const reply = await auth.request('GET', '/auth/location-metadata', { identity: { clientIp: GB_IP } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      country_code: 'GB',
      consent_required: true,
      promotional_email_opt_in: { required: true, pre_checked: false },
    });
  });

  it('when the caller is in the United States, then no consent is required', async () => {
    const reply = await auth.request('GET', '/auth/location-metadata', { identity: { clientIp: US_IP } });
    expect(reply.body).toEqual({
      country_code: 'US',
      consent_required: false,
      promotional_email_opt_in: { required: false, pre_checked: true },
    });
  });

  it('when the address is private or unknown, then the country code is empty and no consent is required', async () => {
    for (const clientIp of ['10.1.2.3', '127.0.0.1', '']) {
      const reply = await auth.request('GET', '/auth/location-metadata', { identity: { clientIp } });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ country_code: '', consent_required: false });
    }
  });
});

describe('POST /auth/register with consent', () => {
  it('when a caller from a consent country leaves consent out or false, then 400 50035 CONSENT_REQUIRED on consent', async () => {
    for (const consent of [undefined, false]) {
      const reply = await auth.request('POST', '/auth/register', { identity: { clientIp: GB_IP }, body: registration({ consent }) });
      expectFormError(reply, { consent: 'CONSENT_REQUIRED' });
    }
  });

  it('when a caller from a consent country agrees, then the account is created with its promotional choice stored', async () => {
    const account = await auth.register({ consent: true, promotional_email_opt_in: true }, { identity: { clientIp: GB_IP } });
    const row = await auth.db
      .selectFrom('users')
      .select('promotional_email_opt_in')
      .where('id', '=', account.userId)
      .executeTakeFirstOrThrow();
    expect(row.promotional_email_opt_in).toBe(true);
  });

  it('when a caller from elsewhere leaves consent out, then the account is created', async () => {
    const reply = await auth.request('POST', '/auth/register', {
      identity: { clientIp: US_IP },
      body: registration({ consent: undefined }),
    });
    expect(reply.status).toBe(201);
  });
});

describe('POST /auth/password/validate', () => {
  it('when the password is strong, then valid is true with a high score', async () => {
    const reply = await auth.request('POST', '/auth/password/validate', { body: { password: 'violet-Harbor-71-quokka!' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ valid: true, password_strength: expect.any(Number) });
    expect((reply.body as { password_strength: number }).password_strength).toBeGreaterThanOrEqual(3);
  });

  it('when the password is common, then valid is false with score 0', async () => {
    const reply = await auth.request('POST', '/auth/password/validate', { body: { password: 'password123' } });
    expect(reply.body).toEqual({ valid: false, password_strength: 0 });
  });

  it('when the password is shorter than 8 or longer than 72, then 400 50035 BASE_TYPE_BAD_LENGTH', async () => {
    for (const password of ['short', 'x'.repeat(73)])
      expectFormError(await auth.request('POST', '/auth/password/validate', { body: { password } }), { password: 'BASE_TYPE_BAD_LENGTH' });
  });

  it('when the password is missing or not a string, then 400 50035 names the field', async () => {
    expectFormError(await auth.request('POST', '/auth/password/validate', { body: {} }), { password: 'BASE_TYPE_REQUIRED' });
    expectFormError(await auth.request('POST', '/auth/password/validate', { body: { password: 12345678 } }), {
      password: 'BASE_TYPE_STRING',
    });
  });

  it('when the body is malformed JSON, then 400 50109', async () => {
    const reply = await auth.request('POST', '/auth/password/validate', { rawBody: '{"password":' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 50109 });
  });
});

describe('GET /unique-username/username-suggestions-unauthed', () => {
  const USERNAME = /^(?!.*\.\.)[a-z0-9_.]{2,32}$/;

  it('when a display name is given, then a free username derived from it is suggested', async () => {
    const reply = await auth.request<{ username: string }>(
      'GET',
      `/unique-username/username-suggestions-unauthed?global_name=${encodeURIComponent('Zoë..Smith!')}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.username).toMatch(USERNAME);
    expect(reply.body.username.startsWith('zo.smith')).toBe(true);
  });

  it('when the derived name is taken, then another free one is suggested', async () => {
    const taken = await auth.register();
    const reply = await auth.request<{ username: string }>(
      'GET',
      `/unique-username/username-suggestions-unauthed?global_name=${taken.username}`,
    );
    expect(reply.body.username).toMatch(USERNAME);
    expect(reply.body.username).not.toBe(taken.username);
    const check = await auth.request('POST', '/unique-username/username-attempt-unauthed', { body: { username: reply.body.username } });
    expect(check.body).toEqual({ taken: false });
  });

  it('when no display name is given, then a random valid username is suggested', async () => {
    const reply = await auth.request<{ username: string }>('GET', '/unique-username/username-suggestions-unauthed');
    expect(reply.status).toBe(200);
    expect(reply.body.username).toMatch(USERNAME);
  });

  it('when the display name is longer than 32, then 400 50035 on global_name', async () => {
    const reply = await auth.request('GET', `/unique-username/username-suggestions-unauthed?global_name=${'a'.repeat(33)}`);
    expectFormError(reply, { global_name: 'BASE_TYPE_MAX_LENGTH' });
  });
});

describe('POST /unique-username/username-attempt-unauthed', () => {
  it('when the username belongs to an account, in any case, then taken is true', async () => {
    const account = await auth.register();
    expect(
      (await auth.request('POST', '/unique-username/username-attempt-unauthed', { body: { username: account.username } })).body,
    ).toEqual({ taken: true });
  });

  it('when the username is free, then taken is false', async () => {
    const reply = await auth.request('POST', '/unique-username/username-attempt-unauthed', { body: { username: unique('free') } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ taken: false });
  });

  it('when the username breaks the rules, then 400 50035 with the codes registration uses', async () => {
    const attempt = (username: unknown) => auth.request('POST', '/unique-username/username-attempt-unauthed', { body: { username } });
    expectFormError(await attempt('Upper'), { username: 'USERNAME_INVALID_CHARACTERS' });
    expectFormError(await attempt('a..b'), { username: 'USERNAME_INVALID_CONSECUTIVE_PERIODS' });
    expectFormError(await attempt('a'), { username: 'BASE_TYPE_BAD_LENGTH' });
    expectFormError(await attempt(undefined), { username: 'BASE_TYPE_REQUIRED' });
  });

  it('when the body is malformed JSON, then 400 50109', async () => {
    const reply = await auth.request('POST', '/unique-username/username-attempt-unauthed', { rawBody: '{' });
    expect(reply.body).toMatchObject({ code: 50109 });
  });
});

describe('GET /experiments and fingerprints', () => {
  const fingerprint = async () => {
    const reply = await auth.request<{ fingerprint: string; assignments: unknown[] }>('GET', '/experiments');
    expect(reply.status).toBe(200);
    return reply.body.fingerprint;
  };

  it('when the caller is anonymous, then it gets a snowflake.secret fingerprint and no assignments', async () => {
    const reply = await auth.request('GET', '/experiments');
    expect(reply.body).toEqual({ fingerprint: expect.stringMatching(/^\d{17,20}\.[A-Za-z0-9_-]{20,}$/), assignments: [] });
  });

  it('when the caller is signed in, then no fingerprint is issued', async () => {
    const account = await auth.register();
    expect((await auth.request('GET', '/experiments', { identity: account.identity })).body).toEqual({ assignments: [] });
  });

  it('when registering with an issued fingerprint in the body, then the account takes its snowflake', async () => {
    const fp = await fingerprint();
    const account = await auth.register({ fingerprint: fp });
    expect(account.userId).toBe(fp.split('.')[0]);
  });

  it('when registering with the fingerprint only in X-Fingerprint (carried in the identity), then the account takes its snowflake', async () => {
    const fp = await fingerprint();
    const account = await auth.register({}, { identity: { fingerprint: fp } });
    expect(account.userId).toBe(fp.split('.')[0]);
  });

  it('when a fingerprint was already used, then the next account gets a fresh id', async () => {
    const fp = await fingerprint();
    const first = await auth.register({ fingerprint: fp });
    const second = await auth.register({ fingerprint: fp });
    expect(first.userId).toBe(fp.split('.')[0]);
    expect(second.userId).not.toBe(first.userId);
  });

  it('when the fingerprint was not issued by us, then registration succeeds with a fresh id', async () => {
    const forged = `1084179945133187083.${'A'.repeat(27)}`;
    const account = await auth.register({ fingerprint: forged });
    expect(account.userId).not.toBe('1084179945133187083');
  });

  it('when registration fails, then the fingerprint stays usable', async () => {
    const fp = await fingerprint();
    const taken = await auth.register();
    expectFormError(await auth.request('POST', '/auth/register', { body: registration({ fingerprint: fp, username: taken.username }) }), {
      username: 'USERNAME_ALREADY_TAKEN',
    });
    expect((await auth.register({ fingerprint: fp })).userId).toBe(fp.split('.')[0]);
  });
});
