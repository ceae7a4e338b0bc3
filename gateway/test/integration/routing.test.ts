import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import pg from 'pg';
import { testKeys, testSigner } from '@kith/platform/testing';
import {
  AUTH_DATABASE,
  call,
  closedPort,
  login,
  registerUser,
  startTestAuth,
  startTestGateway,
  stopAll,
  type AuthUnderTest,
} from './harness.js';

const UNAUTHORIZED = { code: 0, message: '401: Unauthorized' };
const NOT_FOUND = { code: 0, message: '404: Not Found' };

interface Me {
  id: string;
  username: string;
  email: string;
}

let under: AuthUnderTest;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let base: string;

beforeAll(async () => {
  under = await startTestAuth();
  // invites "is deployed" but down: its paths must fail fast with 503, not hang or 404.
  gateway = await startTestGateway(under, { INVITES_HTTP_URL: `http://127.0.0.1:${await closedPort()}` });
  base = gateway.base;
});

afterAll(async () => {
  await stopAll(gateway?.closers, under?.auth.closers);
});

/** The status of a GET whose path goes on the wire exactly as written. */
function rawStatus(path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: gateway.port, path, headers: { authorization: token } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Makes the user a bot account, as an application's bot user is, in auth's own database. */
async function markBot(userId: string): Promise<void> {
  const url = new URL(under.stores.DATABASE_URL);
  url.pathname = `/${AUTH_DATABASE}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query('UPDATE users SET bot = true WHERE id = $1', [userId]);
  } finally {
    await client.end();
  }
}

describe('gateway in front of the real auth service', () => {
  it('when a user registers and logs in, then /users/@me answers alike under /api/v9, /api/v10 and /api', async () => {
    const user = await registerUser(base);
    const { token, userId } = await login(base, user);

    for (const prefix of ['/api/v9', '/api/v10', '/api']) {
      const me = await call<Me>(base, `${prefix}/users/@me`, { token });
      expect(me.status, prefix).toBe(200);
      expect(me.body).toMatchObject({ id: userId, username: user.username, email: user.email });
      expect(me.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('when a user token comes under `Bot ` or `Bearer `, then it is refused as the platform refuses it', async () => {
    const user = await registerUser(base);

    for (const authorization of [`Bot ${user.token}`, `Bearer ${user.token}`, `bearer  ${user.token}`]) {
      const me = await call(base, '/api/v9/users/@me', { authorization });
      expect(me.status, authorization.split(' ')[0]).toBe(401);
      expect(me.body).toEqual(UNAUTHORIZED);
    }
    expect((await call(base, '/api/v9/users/@me', { authorization: user.token })).status).toBe(200);
  });

  it('when a bot’s token comes as `Bot <token>`, then it is accepted; raw or as `Bearer`, it is refused', async () => {
    const user = await registerUser(base);
    const { userId } = await login(base, user);
    await markBot(userId);

    const asBot = await call<Me>(base, '/api/v9/users/@me', { authorization: `Bot ${user.token}` });
    expect(asBot.status).toBe(200);
    expect(asBot.body.id).toBe(userId);
    for (const authorization of [user.token, `Bearer ${user.token}`]) {
      const refused = await call(base, '/api/v9/users/@me', { authorization });
      expect(refused.status, authorization.slice(0, 6)).toBe(401);
      expect(refused.body).toEqual(UNAUTHORIZED);
    }
  });

  it('when a client percent-encodes @me, then the edge decodes the path once and the service answers as for @me', async () => {
    const user = await registerUser(base);
    const { userId } = await login(base, user);

    for (const path of ['/api/v9/users/%40me', '/api/v10/users/%40me/', '/api/v9/%75sers/%40me']) {
      const me = await call<Me>(base, path, { token: user.token });
      expect(me.status, path).toBe(200);
      expect(me.body.id).toBe(userId);
    }
    // Encoded twice is the text "%40me", not @me; a dot segment is no route at all.
    expect((await call(base, '/api/v9/users/%2540me', { token: user.token })).status).toBe(404);
    // Sent as is: a URL parser would resolve the dot segment before it left.
    for (const path of ['/api/v9/users/@me/%2E%2E/%40me', '/api/v9/users/@me/relationships/../../@me'])
      expect(await rawStatus(path, user.token), path).toBe(404);
  });

  it('when /users/@me is asked without a token, then it is 401 with the platform body', async () => {
    const res = await call(base, '/api/v9/users/@me');

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('when the token is garbage, then the edge answers 401 with the platform body', async () => {
    for (const authorization of ['garbage', 'Bot garbage', `${'x'.repeat(600)}`]) {
      const res = await call(base, '/api/v9/users/@me', { authorization });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    }
  });

  it('when a garbage token is sent to an open route, then it is still refused rather than treated as anonymous', async () => {
    const res = await call(base, '/api/v9/auth/login', { authorization: 'garbage', json: { login: 'a@example.com', password: 'x' } });

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('when the route is unknown, then it is 404 with the platform body', async () => {
    for (const path of ['/api/v9/nope', '/api/v9/users/123/connections', '/api/v8/users/@me', '/v9/users/@me', '/']) {
      const res = await call(base, path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });

  it('when the route belongs to a service that is not deployed, then it is 404 with the platform body', async () => {
    const user = await registerUser(base);

    for (const path of ['/api/v9/guilds/1', '/api/v9/users/@me/guilds', '/api/v9/users/@me/relationships', '/api/v9/channels/1/webhooks']) {
      const res = await call(base, path, { token: user.token });
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });

  it('when the service of a route is down, then it is 503 with the platform body, at once', async () => {
    const res = await call(base, '/api/v9/invites/abc');

    // A refused connection answers 503 at once; waiting for any timeout would have answered 504.
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ code: 0, message: '503: Service Unavailable' });
    expect(res.headers['retry-after']).toBe('1');
  });

  it('when a client forges X-Internal-Identity signed by another key, then the service never sees it', async () => {
    const user = await registerUser(base);
    const { userId } = await login(base, user);
    const forged = await (await testSigner(testKeys().privateKey))('auth', { userId });

    const anonymous = await call(base, '/api/v9/users/@me', { headers: { 'x-internal-identity': forged } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
  });

  it('when a client forges X-Internal-Identity with the real key for another user, then the request is still only its own', async () => {
    const victim = await registerUser(base);
    const { userId: victimId } = await login(base, victim);
    const attacker = await registerUser(base);
    const sign = await testSigner(under.keys.privateKey);
    const forged = await sign('auth', { userId: victimId, sessionId: 'forged' });

    const anonymous = await call(base, '/api/v9/users/@me', { headers: { 'x-internal-identity': forged, 'X-Internal-Other': 'x' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);

    const asAttacker = await call<Me>(base, '/api/v9/users/@me', { token: attacker.token, headers: { 'x-internal-identity': forged } });
    expect(asAttacker.status).toBe(200);
    expect(asAttacker.body.username).toBe(attacker.username);
    expect(asAttacker.body.id).not.toBe(victimId);
  });

  it('when a browser sends a CORS preflight, then the edge answers 204 with the allowed methods and headers', async () => {
    const res = await call(base, '/api/v9/users/@me', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });

    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-headers'])).toContain('authorization');
    expect(String(res.headers['access-control-allow-methods'])).toContain('GET');
  });

  it('when a browser calls an API route, then the answer carries the CORS headers, errors included', async () => {
    const user = await registerUser(base);

    const ok = await call(base, '/api/v9/users/@me', { token: user.token, headers: { origin: 'https://app.example' } });
    const refused = await call(base, '/api/v9/users/@me', { authorization: 'garbage', headers: { origin: 'https://app.example' } });

    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    expect(String(ok.headers['access-control-expose-headers'])).toContain('x-request-id');
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });

  it('when /healthz and /readyz of the edge are asked, then both answer 200 and report NATS and auth as answering', async () => {
    const health = await call(base, '/healthz');
    const ready = await call<{ status: string; dependencies: Record<string, string> }>(base, '/readyz');

    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', dependencies: { nats: 'ok', auth: 'ok' } });
  });
});

describe('gateway whose auth service does not answer', () => {
  it('when a token cannot be checked, then the edge answers 503, and stays ready while reporting auth down', async () => {
    const lonely = await startTestGateway(under, {
      AUTH_GRPC_ADDR: `127.0.0.1:${await closedPort()}`,
      AUTH_HTTP_URL: `http://127.0.0.1:${await closedPort()}`,
    });
    try {
      const res = await call(lonely.base, '/api/v9/users/@me', { authorization: 'some-token' });
      const anonymous = await call(lonely.base, '/api/v9/auth/login', { json: { login: 'a@example.com', password: 'x' } });
      const ready = await call<{ status: string; dependencies: Record<string, string> }>(lonely.base, '/readyz');

      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 0, message: '503: Service Unavailable' });
      expect(anonymous.status).toBe(503);
      expect(anonymous.body).toEqual({ code: 0, message: '503: Service Unavailable' });
      expect([res.headers['retry-after'], anonymous.headers['retry-after']]).toEqual(['1', '1']);
      // Other edges, services and the sockets already open go on: this edge stays in rotation.
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ok');
      expect(ready.body.dependencies.nats).toBe('ok');
      expect(ready.body.dependencies.auth).not.toBe('ok');
    } finally {
      await stopAll(lonely.closers);
    }
  });
});

describe('gateway whose auth service is too busy to answer in time', () => {
  it('when a token check runs out of time, then the edge answers 503 with Retry-After (not 504), which a client waits out and retries', async () => {
    // A peer that takes the connection and never says a word: every check waits out its deadline.
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => void sockets.add(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const busy = await startTestGateway(under, { AUTH_GRPC_ADDR: `127.0.0.1:${(silent.address() as AddressInfo).port}` });
    try {
      const res = await call(busy.base, '/api/v9/users/@me', { authorization: 'some-token' });
      expect(sockets.size).toBeGreaterThan(0);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 0, message: '503: Service Unavailable' });
      expect(res.headers['retry-after']).toBe('1');
    } finally {
      await stopAll(busy.closers);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
