import { randomUUID } from 'node:crypto';
import { createRedis, type Redis } from '@kith/platform';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { digest } from '../../src/domain/registration/digest.js';
import { AuthHarness, expectFormError, type Account } from './auth.harness.js';

let auth: AuthHarness;
/** The service's own Redis keyspace (its default prefix), to age a grant without waiting a minute. */
let redis: Redis;

beforeAll(async () => {
  auth = await AuthHarness.start();
  redis = createRedis(inject('stores').REDIS_URL, auth.redisPrefix);
});

afterAll(async () => {
  redis?.disconnect();
  await auth?.close();
});

const IP = '203.0.113.7';

async function signedIn(): Promise<Account> {
  const account = await auth.register();
  return { ...account, identity: { ...account.identity, clientIp: IP } };
}

async function createHandoff(account: Account, key: string): Promise<string> {
  const reply = await auth.request<{ handoff_token: string }>('POST', '/auth/handoff', { identity: account.identity, body: { key } });
  expect(reply.status).toBe(200);
  return reply.body.handoff_token;
}

const exchange = (key: unknown, handoff_token: unknown, clientIp = IP) =>
  auth.request<{ token: string; user: { id: string } }>('POST', '/auth/handoff/exchange', {
    identity: { clientIp },
    body: { key, handoff_token },
  });

const refused = (reply: Awaited<ReturnType<typeof exchange>>) => expectFormError(reply, { handoff_token: 'HANDOFF_TOKEN_INVALID' });

describe('handoff', () => {
  it('when the token is exchanged from the same address with the same key, then a new session for the user and its partial user come back', async () => {
    const account = await signedIn();
    const key = randomUUID();
    const token = await createHandoff(account, key);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const reply = await exchange(key, token);
    expect(reply.status).toBe(200);
    // The platform's one rendering of a user (partialUserView), as every service answers it.
    expect(reply.body.user).toEqual({
      id: account.userId,
      username: account.username,
      discriminator: '0',
      global_name: null,
      avatar: null,
      avatar_decoration_data: null,
      collectibles: null,
      primary_guild: null,
      public_flags: 0,
      flags: 0,
      banner: null,
      accent_color: null,
    });
    expect(reply.body.token).not.toBe(account.token);
    const identity = await auth.identityOf(reply.body.token, IP);
    expect(identity.userId).toBe(account.userId);
    expect(identity.sessionId).not.toBe(account.sessionId);
  });

  it('when the token is exchanged a second time, then it is refused', async () => {
    const account = await signedIn();
    const key = randomUUID();
    const token = await createHandoff(account, key);
    expect((await exchange(key, token)).status).toBe(200);
    refused(await exchange(key, token));
  });

  it('when the exchange comes from another address, then it is refused and the token is spent', async () => {
    const account = await signedIn();
    const key = randomUUID();
    const token = await createHandoff(account, key);
    refused(await exchange(key, token, '198.51.100.9'));
    refused(await exchange(key, token));
  });

  it('when the key differs, then it is refused', async () => {
    const account = await signedIn();
    const token = await createHandoff(account, randomUUID());
    refused(await exchange(randomUUID(), token));
  });

  it('when the token is unknown, then it is refused', async () => {
    refused(await exchange(randomUUID(), 'A'.repeat(43)));
  });

  it('when the token has expired, then it is refused', async () => {
    const account = await signedIn();
    const key = randomUUID();
    const token = await createHandoff(account, key);
    // Expiry is Redis's: the grant's 60 s life is cut to 1 ms instead of waiting it out.
    expect(await redis.pttl(`handoff:${digest(token)}`)).toBeGreaterThan(50_000);
    expect(await redis.pexpire(`handoff:${digest(token)}`, 1)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    refused(await exchange(key, token));
  });

  it('when the account was disabled after creating the token, then it is refused', async () => {
    const account = await signedIn();
    const key = randomUUID();
    const token = await createHandoff(account, key);
    await auth.db.updateTable('users').set({ disabled_at: new Date() }).where('id', '=', account.userId).execute();
    refused(await exchange(key, token));
  });

  it('when an anonymous caller creates a handoff, then 401', async () => {
    const reply = await auth.request('POST', '/auth/handoff', { identity: { clientIp: IP }, body: { key: randomUUID() } });
    expect(reply.status).toBe(401);
  });

  it('when bodies miss fields or are malformed, then 400 with the platform codes', async () => {
    const account = await signedIn();
    expectFormError(await auth.request('POST', '/auth/handoff', { identity: account.identity, body: {} }), { key: 'BASE_TYPE_REQUIRED' });
    expectFormError(await auth.request('POST', '/auth/handoff', { identity: account.identity, body: { key: '' } }), {
      key: 'BASE_TYPE_BAD_LENGTH',
    });
    expectFormError(await exchange(undefined, undefined), { key: 'BASE_TYPE_REQUIRED', handoff_token: 'BASE_TYPE_REQUIRED' });
    expectFormError(await exchange('k', 42), { handoff_token: 'BASE_TYPE_STRING' });
    const malformed = await auth.request('POST', '/auth/handoff/exchange', { identity: { clientIp: IP }, rawBody: '{"key":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 50109 });
  });
});
