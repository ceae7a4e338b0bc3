import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { IdentitySigner, closeHttpServer, createLogger, listen } from '@kith/platform';
import { testKeys } from '@kith/platform/testing';
import { ClientIpResolver } from './client-ip.js';
import { ClientSlots } from './client-slots.js';
import { Cors } from './cors.js';
import { createEdgeHandler } from './edge.js';
import type { Upstreams } from './proxy.js';
import { TokenCache, type TokenOwner } from './token.cache.js';

/** Stands in for the services: answers every request with `status` and `answer` headers. */
class FakeUpstreams {
  status = 200;
  answer: Record<string, string> = {};
  readonly forwarded: { name: string; path: string; headers: IncomingHttpHeaders; cachedWhenAnswered: number }[] = [];
  constructor(private readonly tokens: TokenCache) {}

  has(name: string): boolean {
    return name === 'auth';
  }

  async forward(
    name: string,
    { path, headers }: { path: string; headers: IncomingHttpHeaders },
    res: ServerResponse,
    onAnswer?: (headers: Record<string, string>) => void,
  ) {
    onAnswer?.(this.answer);
    this.forwarded.push({ name, path, headers, cachedWhenAnswered: this.tokens.size });
    res.statusCode = this.status;
    res.end();
  }
}

const alice: TokenOwner = { userId: '100', sessionId: 's-alice', bot: false };
const alicePhone: TokenOwner = { userId: '100', sessionId: 's-alice-phone', bot: false };
const bob: TokenOwner = { userId: '200', sessionId: 's-bob', bot: false };
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** An edge with a 1 s token cache and no revocation events at all: only what it forwards can evict. */
async function edge() {
  const owners = new Map<string, TokenOwner | null>([
    ['tok-alice', alice],
    ['tok-alice-phone', alicePhone],
    ['tok-bob', bob],
  ]);
  const tokens = new TokenCache(async (token) => owners.get(token) ?? null, { ttlMs: 1000, feedTtlMs: 1000, maxEntries: 100 });
  const upstreams = new FakeUpstreams(tokens);
  const handler = createEdgeHandler({
    logger: createLogger('gateway', 'silent'),
    signer: await IdentitySigner.fromPem(testKeys().privateKey, { reuseMs: 5000 }),
    tokens,
    upstreams: upstreams as unknown as Upstreams,
    clientIp: new ClientIpResolver(''),
    cors: new Cors('*'),
    maxBodyBytes: 1024,
    bodies: { bufferBytes: 1024, idleMs: 1000, totalMs: 1000 },
    slots: new ClientSlots(8, 8),
    probes: { ready: async () => ({ ready: true, dependencies: {} }) },
  });
  const { server, port } = await listen(handler, 0);
  closers.push(() => closeHttpServer(server, 100));
  const send = async (method: 'GET' | 'POST', path: string, token: string, headers: Record<string, string> = {}) => {
    const res = await request(`http://127.0.0.1:${port}${path}`, { method, headers: { ...headers, authorization: token } });
    await res.body.dump();
    return res.statusCode;
  };
  return { owners, tokens, upstreams, send };
}

describe('edge handler', () => {
  it('when a service’s answer names revoked sessions, then their tokens are refused before the answer is relayed', async () => {
    const { owners, tokens, upstreams, send } = await edge();
    for (const token of ['tok-alice', 'tok-alice-phone', 'tok-bob']) expect(await send('GET', '/api/v9/users/@me', token)).toBe(200);
    expect(tokens.size).toBe(3);

    upstreams.status = 204;
    upstreams.answer = { 'x-internal-revoked-sessions': `${alicePhone.sessionId},s-unknown` };
    expect(await send('POST', '/api/v9/auth/sessions/logout', 'tok-alice')).toBe(204);
    expect(upstreams.forwarded.at(-1)!.cachedWhenAnswered).toBe(2);

    // Even if auth were still (wrongly) vouching for it, the revoked session is refused here.
    upstreams.status = 200;
    upstreams.answer = {};
    expect(await send('GET', '/api/v9/users/@me', 'tok-alice-phone')).toBe(401);
    expect(owners.get('tok-alice-phone')).toEqual(alicePhone);
    expect(await send('GET', '/api/v9/users/@me', 'tok-alice')).toBe(200);
    expect(await send('GET', '/api/v9/users/@me', 'tok-bob')).toBe(200);
  });

  it('when an answer names no revoked sessions, then the cache is left alone', async () => {
    const { tokens, upstreams, send } = await edge();
    await send('GET', '/api/v9/users/@me', 'tok-alice');
    upstreams.status = 400;
    expect(await send('POST', '/api/v9/auth/sessions/logout', 'tok-alice')).toBe(400);
    expect(tokens.size).toBe(1);
  });

  it('when a request is forwarded, then the service gets no Authorization and no client X-Internal-* header', async () => {
    const { upstreams, send } = await edge();

    expect(await send('GET', '/api/v9/users/@me?x=1', 'tok-bob', { 'x-internal-identity': 'forged', 'x-internal-admin': '1' })).toBe(200);

    const { name, path, headers } = upstreams.forwarded.at(-1)!;
    expect(name).toBe('auth');
    expect(path).toBe('/users/@me?x=1');
    expect(headers.authorization).toBeUndefined();
    expect(headers['x-internal-admin']).toBeUndefined();
    expect(headers['x-internal-identity']).not.toBe('forged');
    expect(headers['x-internal-identity']).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('when one session sends several requests, then they share one signed identity and each has its own request id', async () => {
    const { upstreams, send } = await edge();

    await send('GET', '/api/v9/users/@me', 'tok-alice');
    await send('GET', '/api/v9/users/@me', 'tok-alice');
    await send('GET', '/api/v9/users/@me', 'tok-alice-phone');

    const [first, second, phone] = upstreams.forwarded.map((f) => f.headers);
    expect(second!['x-internal-identity']).toBe(first!['x-internal-identity']);
    expect(phone!['x-internal-identity']).not.toBe(first!['x-internal-identity']);
    expect(first!['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!['x-request-id']).not.toBe(first!['x-request-id']);
  });
});
