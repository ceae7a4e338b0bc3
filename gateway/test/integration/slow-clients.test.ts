import { connect, type Socket } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, registerUser, startTestAuth, startTestGateway, stopAll, type AuthUnderTest, type TestUser } from './harness.js';

/**
 * Clients that send their request bodies slowly (a byte now and then) must not take a service
 * offline for everyone else: the edge's pool of connections to each service is 64, and each slow
 * body used to hold one of them for as long as it trickled (Node allows 300 s).
 */

let under: AuthUnderTest;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let user: TestUser;
/** Another client: a loopback address of its own, so per-client limits see someone else. */
const bystander = new Agent({ localAddress: '127.0.0.2' });

beforeAll(async () => {
  under = await startTestAuth();
  gateway = await startTestGateway(under, { BODY_BUFFER_BYTES: '4096', BODY_IDLE_TIMEOUT_MS: '5000' });
  user = await registerUser(gateway.base);
});

afterAll(async () => {
  await bystander.close();
  await stopAll(gateway?.closers, under?.auth.closers);
});

interface Trickler {
  socket: Socket;
  /** Bytes the edge sent back: anything at all means the request was answered or refused. */
  received: number;
  closed: boolean;
}

/**
 * A client that sends a login's headers (and `burst` bytes of body at once), then one byte every
 * `everyMs`, and gives up after `forMs`: a slow body of a known, bounded length.
 */
function trickle(port: number, opts: { headers: string; burst?: number; everyMs: number; forMs: number }): Trickler {
  const socket = connect({ host: '127.0.0.1', port });
  const t: Trickler = { socket, received: 0, closed: false };
  socket.on('data', (chunk) => (t.received += chunk.length));
  socket.on('close', () => (t.closed = true));
  socket.on('error', () => undefined);
  socket.write(`POST /api/v9/auth/login HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\n${opts.headers}\r\n`);
  const chunked = opts.headers.includes('chunked');
  const send = (text: string) => socket.write(chunked ? `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n` : text);
  if (opts.burst) send(opts.burst === 1 ? '{' : `{"login": "${'x'.repeat(opts.burst - 12)}`);
  const timer = setInterval(() => send(' '), opts.everyMs);
  setTimeout(() => {
    clearInterval(timer);
    socket.destroy();
  }, opts.forMs).unref();
  socket.on('close', () => clearInterval(timer));
  return t;
}

async function attack(count: number, opts: Parameters<typeof trickle>[1]): Promise<Trickler[]> {
  const tricklers = Array.from({ length: count }, () => trickle(gateway.port, opts));
  // Long enough for every slow request to reach the edge and, before the fix, take its connection.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return tricklers;
}

/** What another client gets meanwhile: its own account, and a login. */
async function bystanderIsServed(): Promise<void> {
  const me = await call(gateway.base, '/api/v9/users/@me', { token: user.token, dispatcher: bystander });
  expect(me.status).toBe(200);
  const again = await call(gateway.base, '/api/v9/auth/login', {
    json: { login: user.email, password: user.password },
    dispatcher: bystander,
  });
  expect(again.status).toBe(200);
}

describe('slow request bodies at the edge', () => {
  it('when 80 clients each trickle a small login body, then another client is served while every one of them is still sending', async () => {
    const slow = await attack(80, { headers: 'Content-Length: 100\r\n', burst: 1, everyMs: 500, forMs: 12_000 });
    try {
      await bystanderIsServed();
      expect(slow.filter((t) => t.received > 0 || t.closed)).toHaveLength(0);
    } finally {
      for (const t of slow) t.socket.destroy();
    }
  });

  it('when 80 clients trickle bodies of unknown length, then another client is served while every one of them is still sending', async () => {
    const slow = await attack(80, { headers: 'Transfer-Encoding: chunked\r\n', everyMs: 500, forMs: 12_000 });
    try {
      await bystanderIsServed();
      expect(slow.filter((t) => t.received > 0 || t.closed)).toHaveLength(0);
    } finally {
      for (const t of slow) t.socket.destroy();
    }
  });

  it('when one address trickles 80 bodies too large to hold at the edge, then it holds only its own few connections and another client is served', async () => {
    // 5 KB sent at once (more than the edge holds in memory here), then a byte at a time: streamed.
    const slow = await attack(80, { headers: 'Content-Length: 100000\r\n', burst: 5000, everyMs: 500, forMs: 12_000 });
    try {
      await bystanderIsServed();
      expect(slow.filter((t) => t.received > 0 || t.closed)).toHaveLength(0);
    } finally {
      for (const t of slow) t.socket.destroy();
    }
  });

  it('when a client stops sending its body, then it is answered 408 and its connection is closed', async () => {
    const stalled = trickle(gateway.port, { headers: 'Content-Length: 100\r\n', burst: 1, everyMs: 60_000, forMs: 20_000 });
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      stalled.socket.on('data', (chunk) => (text += chunk.toString()));
      stalled.socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('{"code":0,"message":"408: Request Timeout"}');
  });
});
