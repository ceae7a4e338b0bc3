import { createServer, type AddressInfo } from 'node:net';
import type { Express } from 'express';
import pg from 'pg';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { testKeys, testSigner, unique } from '@kith/platform/testing';
import { ApiError } from '../../src/errors.js';
import { UpstreamError } from '../../src/grpc.js';
import { closeHttpServer, createServiceApp, identityOf, listen, parse, userIdOf, type ServiceAppOptions } from '../../src/http.js';
import { INTERNAL_IDENTITY_HEADER, IdentityVerifier } from '../../src/identity.js';
import { createLogger } from '../../src/logger.js';

const AUDIENCE = 'sample';
const keys = testKeys();
let verifier: IdentityVerifier;
let sign: Awaited<ReturnType<typeof testSigner>>;

let deadPort = 0;

beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  deadPort = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  verifier = await IdentityVerifier.fromPem(keys.publicKey, AUDIENCE);
  sign = await testSigner(keys.privateKey);
});

const profileSchema = z.object({ username: z.string().min(2).max(32), bio: z.string().max(190).optional() });

function sampleRoutes(app: Express): void {
  app.get('/me', (_req, res) => void res.json({ identity: identityOf(res), user_id: userIdOf(res) }));
  app.get('/whoami', (_req, res) => void res.json(identityOf(res)));
  app.post('/profile', (req, res) => void res.json(parse(profileSchema, req.body)));
  app.post('/echo', (req, res) => void res.json(req.body));
  app.get('/search', (req, res) => void res.json(parse(z.object({ q: z.string() }), req.query)));
  app.post('/private', (req, res) => void res.json({ user: userIdOf(res), body: parse(profileSchema, req.body) }));
  app.get('/webhooks/:id/:token', (_req, res) => void res.status(204).end());
  app.get('/unknown-user', () => {
    throw ApiError.of('UNKNOWN_USER');
  });
  app.get('/upstream-timeout', () => {
    throw new UpstreamError(504, 'auth did not answer');
  });
  app.get('/database-down', async (_req, res) => {
    // A real PostgreSQL client against a port nothing listens on: the connection is refused.
    const pool = new pg.Pool({ host: '127.0.0.1', port: deadPort, user: 'postgres', connectionTimeoutMillis: 1000 });
    try {
      res.json((await pool.query('SELECT 1')).rows);
    } finally {
      await pool.end();
    }
  });
  app.get('/too-many-connections', () => {
    // What PostgreSQL answers when max_connections is reached (SQLSTATE 53300).
    throw Object.assign(new Error('sorry, too many clients already'), { code: '53300', severity: 'FATAL' });
  });
  app.get('/boom', () => {
    throw new Error('db password is hunter2');
  });
  app.get('/boom-async', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    throw new Error('async failure detail');
  });
}

/** Starts a service app on a free port for one test; it is closed when the test finishes. */
async function serve(overrides: Partial<ServiceAppOptions> = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('http-test', 'info', {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  const { app, setDraining } = createServiceApp({ logger, verifier, readiness: {}, routes: sampleRoutes, ...overrides });
  const { server, port } = await listen(app, 0);
  onTestFinished(() => closeHttpServer(server, 1000));
  return { base: `http://127.0.0.1:${port}`, lines, setDraining };
}

async function call(base: string, path: string, init: RequestInit & { identity?: string | null } = {}) {
  const { identity, ...rest } = init;
  const headers = new Headers(rest.headers);
  const token = identity === undefined ? await sign(AUDIENCE, { userId: '175928847299117063', requestId: unique('req') }) : identity;
  if (token !== null) headers.set(INTERNAL_IDENTITY_HEADER, token);
  const res = await fetch(`${base}${path}`, { ...rest, headers });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    type: res.headers.get('content-type'),
    text,
    body: text ? (JSON.parse(text) as unknown) : undefined,
  };
}

const json = { 'content-type': 'application/json' };

describe('createServiceApp: internal identity', () => {
  it('when a request has no identity header, then it is a 401 and the route does not run', async () => {
    const { base } = await serve();
    const res = await call(base, '/whoami', { identity: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 0, message: '401: Unauthorized' });
    expect(res.type).toMatch(/^application\/json/);
  });

  it('when the identity was signed for another service, then it is a 401', async () => {
    const { base } = await serve();
    const res = await call(base, '/whoami', { identity: await sign('billing', { userId: '1' }) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 0, message: '401: Unauthorized' });
  });

  it('when the identity is validly signed, then the route runs and sees who is calling', async () => {
    const { base } = await serve();
    const requestId = unique('req');
    const identity = await sign(AUDIENCE, { userId: '42', sessionId: 'sess', clientIp: '203.0.113.5', requestId, fingerprint: 'fp' });
    const res = await call(base, '/me', { identity });
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      identity: { userId: '42', sessionId: 'sess', clientIp: '203.0.113.5', requestId, fingerprint: 'fp' },
      user_id: '42',
    });
  });

  it('when an anonymous caller reaches a route that needs a user, then it is a 401', async () => {
    const { base } = await serve();
    const res = await call(base, '/me', { identity: await sign(AUDIENCE, { userId: null }) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 0, message: '401: Unauthorized' });
  });

  it('when a request is served, then one log line carries its request id, status and a path without the webhook token', async () => {
    const { base, lines } = await serve();
    const requestId = unique('req');
    const res = await call(base, '/webhooks/223704706495545344/secret-token-value', { identity: await sign(AUDIENCE, { requestId }) });
    expect(res.status).toBe(204);
    const requestLines = lines.filter((l) => l.msg === 'request');
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      request_id: requestId,
      method: 'GET',
      status: 204,
      path: '/webhooks/223704706495545344/[redacted]',
    });
    expect(JSON.stringify(lines)).not.toContain('secret-token-value');
  });
});

describe('createServiceApp: request id beside a reused identity', () => {
  it('when one identity without a request id comes with two requests, then each request gets the x-request-id it came with', async () => {
    const { base, lines } = await serve();
    // As the edge signs it: no request id inside, so the same token can serve many requests.
    const identity = await sign(AUDIENCE, { userId: '42', requestId: '' });
    const ids = [unique('req'), unique('req')];

    const answers = [];
    for (const id of ids) answers.push(await call(base, '/me', { identity, headers: { 'x-request-id': id } }));

    expect(answers.map((a) => (a.body as { identity: { requestId: string } }).identity.requestId)).toEqual(ids);
    expect(lines.filter((l) => l.msg === 'request').map((l) => l.request_id)).toEqual(ids);
  });
});

describe('createServiceApp: bodies and errors', () => {
  it('when the JSON body is malformed, then it is a 400 with code 50109', async () => {
    const { base } = await serve();
    const res = await call(base, '/profile', { method: 'POST', headers: json, body: '{"username": "ab",' });
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({ code: 50109, message: 'The request body contains invalid JSON.' });
  });

  it('when a valid body is sent, then the route gets the parsed object', async () => {
    const { base } = await serve();
    const res = await call(base, '/profile', { method: 'POST', headers: json, body: JSON.stringify({ username: 'alice', bio: 'hi' }) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ username: 'alice', bio: 'hi' });
  });

  it('when the body fails the schema, then it is a 400 with code 50035 and the field errors', async () => {
    const { base } = await serve();
    const res = await call(base, '/profile', { method: 'POST', headers: json, body: JSON.stringify({ username: 'a', bio: 5 }) });
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        username: { _errors: [{ code: 'BASE_TYPE_MIN_LENGTH', message: 'Must be 2 or more in length.' }] },
        bio: { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Could not interpret "5" as string.' }] },
      },
    });
  });

  it('when text holds a NUL or half a surrogate pair, anywhere in the body, then it is 50035 at each such field and nothing else is checked', async () => {
    const { base } = await serve();
    const invalid = { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'Invalid character.' }] };
    // Escapes as JSON carries them: PostgreSQL stores neither in text, nor in jsonb.
    const body = '{"username": "a\\u0000b", "bio": "ok \\ud83d\\ude00", "tags": ["x", {"deep": "\\udc00"}], "k\\u0000": 1}';
    const res = await call(base, '/profile', { method: 'POST', headers: json, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: { username: invalid, tags: { 1: { deep: invalid } }, 'k\u0000': invalid },
    });
    // A whole surrogate pair (an emoji) is fine text.
    const emoji = await call(base, '/profile', { method: 'POST', headers: json, body: '{"username": "ab", "bio": "\\ud83d\\ude00"}' });
    expect(emoji.status).toBe(200);
    expect(emoji.body).toEqual({ username: 'ab', bio: '😀' });
  });

  it('when a query parameter holds a NUL, then it is 50035 at that parameter', async () => {
    const { base } = await serve();
    const res = await call(base, '/search?q=a%00b');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ q: { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'Invalid character.' }] } });
    expect((await call(base, '/search?q=ab')).body).toEqual({ q: 'ab' });
  });

  it('when such text comes without a user, to a path or method nothing serves, then the 401, 404 or 405 still comes first', async () => {
    const { base } = await serve();
    const body = '{"username": "a\\u0000b"}';
    const anonymous = await sign(AUDIENCE, { userId: null, requestId: unique('req') });
    expect((await call(base, '/private', { method: 'POST', headers: json, body, identity: anonymous })).status).toBe(401);
    expect((await call(base, '/nowhere', { method: 'POST', headers: json, body })).status).toBe(404);
    expect((await call(base, '/me', { method: 'POST', headers: json, body })).status).toBe(405);
  });

  it('when every route needs a user, then a request without one is a 401 whatever its body, and unknown paths and methods stay 404 and 405', async () => {
    const { base } = await serve({ requireUser: true });
    const anonymous = await sign(AUDIENCE, { userId: null, requestId: unique('req') });
    const bad = { method: 'POST', headers: json, body: '{"username": 5}' };
    const refused = await call(base, '/profile', { ...bad, identity: anonymous });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ code: 0, message: '401: Unauthorized' });
    expect((await call(base, '/nowhere', { ...bad, identity: anonymous })).status).toBe(404);
    expect((await call(base, '/me', { ...bad, identity: anonymous })).status).toBe(405);
    // With a user the body is read as before.
    expect((await call(base, '/profile', bad)).body.code).toBe(50035);
    expect((await call(base, '/healthz', { identity: null })).status).toBe(200);
  });

  it('when there is no body, then the required fields are reported', async () => {
    const { base } = await serve();
    const res = await call(base, '/profile', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: { username: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] } },
    });
  });

  it('when the JSON body is not an object, then the request-level error is DICT_TYPE_CONVERT', async () => {
    const { base } = await serve();
    const res = await call(base, '/profile', { method: 'POST', headers: json, body: '"just a string"' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: { _errors: [{ code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' }] },
    });
  });

  it('when the JSON body nests deeper than the parser allows, then it is a 400 with code 50035 before any route code runs', async () => {
    const { base } = await serve();
    const tooDeep = { _errors: [{ code: 'JSON_TOO_DEEP', message: 'Must be nested 32 or fewer levels deep.' }] };
    // ~10 KB that took every route down to a stack overflow (a 500): arrays, objects, both, in a field.
    for (const body of [
      '['.repeat(5000) + ']'.repeat(5000),
      '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
      '{"username":' + '[{"x":'.repeat(2500) + 'null' + '}]'.repeat(2500) + '}',
      '{"username": "ab", "bio":' + '['.repeat(33) + ']'.repeat(33) + '}',
    ]) {
      const res = await call(base, '/profile', { method: 'POST', headers: json, body });
      expect(res.status, body.slice(0, 30)).toBe(400);
      expect(res.body).toEqual({ code: 50035, message: 'Invalid Form Body', errors: tooDeep });
    }
  });

  it('when brackets sit inside strings or the nesting is within the limit, then the body is read as usual', async () => {
    const { base } = await serve();
    // 32 levels with the body itself; the string holds brackets, an escaped backslash and quote.
    const username = `${'[{'.repeat(100)}\\"[`;
    const value = { username, tags: JSON.parse('['.repeat(31) + ']'.repeat(31)) as unknown };
    const res = await call(base, '/echo', { method: 'POST', headers: json, body: JSON.stringify(value) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(value);
  });

  it('when the body is over the limit, then it is a 413', async () => {
    const { base } = await serve({ bodyLimit: '1kb' });
    const res = await call(base, '/profile', { method: 'POST', headers: json, body: JSON.stringify({ username: 'x'.repeat(2048) }) });
    expect(res.status).toBe(413);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({ code: 40005, message: 'Request entity too large' });
  });

  it('when the body is in a charset JSON does not use, then it is a 415', async () => {
    const { base } = await serve();
    const res = await call(base, '/profile', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      body: '{}',
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ code: 0, message: '415: Unsupported Media Type' });
    // JSON is UTF-8 between systems (RFC 8259): another Unicode encoding is refused alike.
    const utf16 = await call(base, '/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-16le' },
      body: Buffer.from('{"a": 1}', 'utf16le'),
    });
    expect(utf16.status).toBe(415);
    const utf8 = await call(base, '/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: '{"a": 1}',
    });
    expect(utf8.body).toEqual({ a: 1 });
  });

  it('when the route is unknown, then it is a 404 with code 0', async () => {
    const { base } = await serve();
    const res = await call(base, `/${unique('nowhere')}`);
    expect(res.status).toBe(404);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({ code: 0, message: '404: Not Found' });
  });

  it('when a known path is called with another method, then it is a 405 with code 0', async () => {
    const { base } = await serve();
    const res = await call(base, '/profile', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ code: 0, message: '405: Method Not Allowed' });
  });

  it('when a required field is sent as null, then it is reported as required', async () => {
    const { base } = await serve();
    const res = await call(base, '/profile', { method: 'POST', headers: json, body: JSON.stringify({ username: null }) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 50035,
      errors: { username: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] } },
    });
  });

  it('when a request without identity is refused, then it still gets its log line', async () => {
    const { base, lines } = await serve();
    await call(base, '/whoami', { identity: null });
    await expect.poll(() => lines.find((l) => l.msg === 'request' && l.status === 401)).toMatchObject({ method: 'GET', path: '/whoami' });
  });

  it('when a route throws an ApiError, then its status and body are the answer', async () => {
    const { base } = await serve();
    const res = await call(base, '/unknown-user');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 10013, message: 'Unknown User' });
  });

  it('when a route fails on an upstream, then the status is the upstream one with a bare body', async () => {
    const { base } = await serve();
    const res = await call(base, '/upstream-timeout');
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ code: 0, message: '504: Gateway Timeout' });
  });

  it('when a route throws a plain Error, then it is a bare 500 without the message or stack, and the error is logged', async () => {
    const { base, lines } = await serve();
    for (const path of ['/boom', '/boom-async']) {
      const res = await call(base, path);
      expect(res.status).toBe(500);
      expect(res.type).toMatch(/^application\/json/);
      expect(res.body).toEqual({ code: 0, message: '500: Internal Server Error' });
      expect(res.text).not.toMatch(/hunter2|async failure|at .*\.ts/);
    }
    const logged = lines.filter((l) => l.msg === 'unhandled error').map((l) => (l.err as { message: string }).message);
    expect(logged).toEqual(['db password is hunter2', 'async failure detail']);
  });

  it('when the database refuses or is out of connections, then it is a 503 with Retry-After, not a 500, and it is logged', async () => {
    const { base, lines } = await serve();
    for (const path of ['/database-down', '/too-many-connections']) {
      const res = await call(base, path);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body).toEqual({ code: 0, message: '503: Service Unavailable' });
    }
    expect(lines.filter((l) => l.msg === 'store unavailable')).toHaveLength(2);
  });
});

describe('createServiceApp: probes', () => {
  it('when /healthz is called without an identity, then it is 200', async () => {
    const { base } = await serve();
    const res = await call(base, '/healthz', { identity: null });
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('when every readiness check passes, then /readyz is 200 and lists them', async () => {
    const { base } = await serve({ readiness: { db: async () => 1, redis: () => Promise.resolve('PONG') } });
    const res = await call(base, '/readyz', { identity: null });
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 'ok', checks: { db: 'ok', redis: 'ok' } });
  });

  it('when a readiness check rejects, then /readyz is 503 and names it', async () => {
    const { base } = await serve({ readiness: { db: async () => 1, redis: () => Promise.reject(new Error('connection refused')) } });
    const res = await call(base, '/readyz', { identity: null });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { db: 'ok', redis: 'connection refused' } });
  });

  it('when a readiness check hangs, then /readyz answers 503 after about a second', async () => {
    const { base } = await serve({ readiness: { nats: () => new Promise(() => undefined) } });
    const res = await call(base, '/readyz', { identity: null });
    // The check never settles: it answered because the check's own timeout fired, and says so.
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', checks: { nats: 'timeout' } });
  });

  it('when the service is draining, then /readyz is 503 even with every check passing', async () => {
    const { base, setDraining } = await serve({ readiness: { db: async () => 1 } });
    setDraining();
    const res = await call(base, '/readyz', { identity: null });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'draining', checks: { db: 'ok' } });
  });
});
