import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityVerifier, INTERNAL_IDENTITY_HEADER, type Identity } from '@kith/platform';
import { testKeys, testSigner } from '@kith/platform/testing';
import {
  call,
  login,
  registerUser,
  startTestAuth,
  startTestGateway,
  stopAll,
  TinyUpstream,
  type AuthUnderTest,
  type Seen,
} from './harness.js';

let under: AuthUnderTest;
let upstream: TinyUpstream;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
/** The same edge as seen through a trusted proxy on loopback, with a short upstream timeout. */
let proxied: Awaited<ReturnType<typeof startTestGateway>>;
let verifier: IdentityVerifier;

const ECHO = '/api/v9/users/@me/relationships/echo';

beforeAll(async () => {
  under = await startTestAuth();
  upstream = await TinyUpstream.start();
  gateway = await startTestGateway(under, { SOCIAL_HTTP_URL: upstream.url });
  proxied = await startTestGateway(under, {
    SOCIAL_HTTP_URL: upstream.url,
    TRUSTED_PROXIES: '127.0.0.0/8, ::1',
    UPSTREAM_HEADERS_TIMEOUT_MS: '300',
    CORS_ORIGINS: 'https://app.example',
  });
  verifier = await IdentityVerifier.fromPem(under.keys.publicKey, 'social');
});

afterAll(async () => {
  await stopAll(gateway?.closers, proxied?.closers, under?.auth.closers);
  await upstream?.close();
});

async function identityOf(seen: Seen): Promise<Identity> {
  const header = seen.headers[INTERNAL_IDENTITY_HEADER];
  return verifier.verify(typeof header === 'string' ? header : undefined);
}

describe('what a service receives through the edge', () => {
  it('when a signed-in user calls, then the service gets a signed identity with user, session and client IP, and the request id beside it', async () => {
    const user = await registerUser(gateway.base);
    const { token, userId } = await login(gateway.base, user);

    const res = await call<Seen>(gateway.base, `${ECHO}?limit=5`, { token });

    expect(res.status).toBe(200);
    expect(res.headers['x-upstream']).toBe('tiny');
    expect(res.body.url).toBe('/users/@me/relationships/echo?limit=5');
    const identity = await identityOf(res.body);
    expect(identity.userId).toBe(userId);
    expect(identity.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(identity.clientIp).toBe('127.0.0.1');
    // The request id travels beside the identity, which is reused across requests, not inside it.
    expect(identity.requestId).toBe('');
    expect(res.body.headers['x-request-id']).toBe(res.headers['x-request-id']);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when an anonymous client calls, then the identity has no user and no session', async () => {
    const res = await call<Seen>(gateway.base, ECHO);

    const identity = await identityOf(res.body);
    expect(identity.userId).toBeNull();
    expect(identity.sessionId).toBeNull();
    expect(identity.clientIp).toBe('127.0.0.1');
  });

  it('when the identity is meant for one service, then another service refuses it', async () => {
    const res = await call<Seen>(gateway.base, ECHO);
    const authVerifier = await IdentityVerifier.fromPem(under.keys.publicKey, 'auth');

    await expect(authVerifier.verify(String(res.body.headers[INTERNAL_IDENTITY_HEADER]))).rejects.toMatchObject({ status: 401 });
  });

  it('when a client sends Authorization and X-Internal-* headers, then none of them reaches the service', async () => {
    const user = await registerUser(gateway.base);
    const victim = await registerUser(gateway.base);
    const { userId: victimId } = await login(gateway.base, victim);
    const realKeyForgery = await (await testSigner(under.keys.privateKey))('social', { userId: victimId, sessionId: 'forged' });
    const otherKeyForgery = await (await testSigner(testKeys().privateKey))('social', { userId: victimId });

    for (const forged of [realKeyForgery, otherKeyForgery]) {
      const res = await call<Seen>(gateway.base, ECHO, {
        token: user.token,
        headers: { 'X-Internal-Identity': forged, 'x-internal-user-id': victimId, 'X-Internal-Admin': 'true' },
      });

      expect(res.status).toBe(200);
      const received = res.body.headers;
      expect(received.authorization).toBeUndefined();
      expect(Object.keys(received).filter((h) => h.startsWith('x-internal-'))).toEqual([INTERNAL_IDENTITY_HEADER]);
      expect(received[INTERNAL_IDENTITY_HEADER]).not.toBe(forged);
      const identity = await identityOf(res.body);
      expect(identity.userId).not.toBe(victimId);
      expect(identity.sessionId).not.toBe('forged');
    }
  });

  it('when a client sends X-Fingerprint, then it passes through to the service and into the identity', async () => {
    const fingerprint = `${Date.now()}.${randomBytes(8).toString('hex')}`;

    const res = await call<Seen>(gateway.base, ECHO, { headers: { 'x-fingerprint': fingerprint } });

    expect(res.body.headers['x-fingerprint']).toBe(fingerprint);
    expect((await identityOf(res.body)).fingerprint).toBe(fingerprint);
  });

  it('when an untrusted peer sends X-Forwarded-For, then it is ignored and the peer address is the client', async () => {
    const res = await call<Seen>(gateway.base, ECHO, { headers: { 'x-forwarded-for': '203.0.113.9', 'x-request-id': 'chosen-by-client' } });

    expect((await identityOf(res.body)).clientIp).toBe('127.0.0.1');
    expect(res.body.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(res.body.headers['x-request-id']).not.toBe('chosen-by-client');
  });

  it('when a trusted proxy sends X-Forwarded-For, then the right-most untrusted hop is the client', async () => {
    const res = await call<Seen>(proxied.base, ECHO, { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.9, 127.0.0.5' } });

    expect((await identityOf(res.body)).clientIp).toBe('203.0.113.9');
    expect(res.body.headers['x-forwarded-for']).toBe('203.0.113.9');
  });

  it('when a 20 MB body is streamed up, then it arrives intact', async () => {
    const chunks = Array.from({ length: 20 }, () => randomBytes(1024 * 1024));
    const sha256 = createHash('sha256');
    for (const chunk of chunks) sha256.update(chunk);

    const res = await request(`${gateway.base}${ECHO}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      // No content-length: the body goes chunked, as a client uploading from a stream would.
      body: Readable.from(chunks),
    });
    const seen = (await res.body.json()) as Seen;

    expect(res.statusCode).toBe(200);
    expect(seen.headers['transfer-encoding']).toBe('chunked');
    expect(seen.bytes).toBe(20 * 1024 * 1024);
    expect(seen.sha256).toBe(sha256.digest('hex'));
  });

  it('when a body with a content-length is sent, then it arrives intact with that length', async () => {
    const body = randomBytes(3 * 1024 * 1024 + 7);

    const res = await request(`${gateway.base}${ECHO}`, { method: 'PUT', body });
    const seen = (await res.body.json()) as Seen;

    expect(seen.headers['content-length']).toBe(String(body.length));
    expect(seen.bytes).toBe(body.length);
    expect(seen.sha256).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('when a service answers in parts, then each part reaches the client before the service has finished', async () => {
    const res = await request(`${gateway.base}/api/v9/users/@me/relationships/stream`);
    const reader = res.body[Symbol.asyncIterator]();

    const first = await withTimeout(reader.next(), 5000, 'the first part did not arrive while the service held the rest');
    expect(Buffer.from(first.value as Buffer).toString()).toBe('first\n');
    upstream.release();
    let rest = '';
    for (let next = await reader.next(); !next.done; next = await reader.next()) rest += Buffer.from(next.value as Buffer).toString();

    expect(res.statusCode).toBe(200);
    expect(rest).toBe('second\n');
  });

  it('when a service sends a 20 MB answer, then it streams back intact', async () => {
    const total = 20 * 1024 * 1024;

    const res = await request(`${gateway.base}/api/v9/users/@me/relationships/download?bytes=${total}`);
    let bytes = 0;
    const sha256 = createHash('sha256');
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      sha256.update(chunk as Buffer);
    }

    expect(res.statusCode).toBe(200);
    expect(bytes).toBe(total);
    expect(sha256.digest('hex')).toBe(createHash('sha256').update(Buffer.alloc(total, 'k')).digest('hex'));
  });

  it('when a service is slower than the upstream headers timeout, then the edge answers 504 without waiting for it', async () => {
    const started = performance.now();
    const res = await call(proxied.base, '/api/v9/users/@me/relationships/slow');
    const ms = performance.now() - started;
    console.log(`[gateway] 504 for an upstream holding its answer 10 s, UPSTREAM_HEADERS_TIMEOUT_MS=300: answered in ${ms.toFixed(0)} ms`);

    // The service would have answered 200 after its 10 s: a 504 is the edge giving up first, on its own timeout.
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ code: 0, message: '504: Gateway Timeout' });
  });

  it('when origins are listed, then the edge reflects a listed origin with credentials and ignores others', async () => {
    const preflight = (origin: string) =>
      call(proxied.base, ECHO, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });

    const listed = await preflight('https://app.example');
    expect(listed.status).toBe(204);
    expect(listed.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(listed.headers['access-control-allow-credentials']).toBe('true');

    const unlisted = await preflight('https://evil.example');
    expect(unlisted.headers['access-control-allow-origin']).toBeUndefined();
  });
});

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(
    () => clearTimeout(timer),
  );
}
