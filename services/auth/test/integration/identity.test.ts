import { testKeys, testSigner } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthHarness } from './auth.harness.js';

let auth: AuthHarness;

beforeAll(async () => {
  auth = await AuthHarness.start();
});

afterAll(async () => {
  await auth?.close();
});

const UNAUTHORIZED = { code: 0, message: '401: Unauthorized' };

describe('internal identity', () => {
  it('when a request has no x-internal-identity, then 401 before the body is read', async () => {
    for (const [method, path] of [
      ['POST', '/auth/register'],
      ['POST', '/auth/login'],
      ['GET', '/users/@me'],
      ['GET', '/no/such/route'],
    ] as const) {
      const reply = await auth.request(method, path, { identityHeader: null, rawBody: method === 'POST' ? '{not json' : undefined });
      expect(reply.status, path).toBe(401);
      expect(reply.body).toEqual(UNAUTHORIZED);
    }
  });

  it('when the identity is signed with another key, then 401', async () => {
    const account = await auth.register();
    const forged = await (await testSigner(testKeys().privateKey))('auth', account.identity);
    const reply = await auth.request('GET', '/users/@me', { identityHeader: forged });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(UNAUTHORIZED);
  });

  it('when the identity is addressed to another service, then 401', async () => {
    const account = await auth.register();
    const reply = await auth.request('GET', '/users/@me', { identityHeader: await auth.sign('social', account.identity) });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(UNAUTHORIZED);
  });

  it('when the identity header is garbage or a raw user token, then 401', async () => {
    const account = await auth.register();
    for (const header of ['garbage', 'a.b.c', account.token]) {
      const reply = await auth.request('GET', '/users/@me', { identityHeader: header });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(UNAUTHORIZED);
    }
  });

  it('when a valid identity is anonymous, then GET /users/@me is 401', async () => {
    const reply = await auth.request('GET', '/users/@me', { identity: {} });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(UNAUTHORIZED);
  });

  it('when a valid identity asks for an unknown route, then the platform 404', async () => {
    const reply = await auth.request('GET', '/auth/no-such-thing');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ code: 0, message: '404: Not Found' });
  });
});
