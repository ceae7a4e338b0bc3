import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'nats';
import { WebSocket, WebSocketServer } from 'ws';
import { EVENTS_STREAM } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { startRealtime, type RunningRealtime } from '../../../services/realtime/src/app.js';
import { realtimeConfigSchema } from '../../../services/realtime/src/config.js';
import { call, closedPort, registerUser, startTestAuth, startTestGateway, stopAll, type AuthUnderTest } from './harness.js';

/**
 * A stand-in realtime on a real socket: echoes every message back and records the upgrade
 * request it saw, to check exactly what the edge forwards.
 */
class EchoRealtime {
  readonly seen: { url: string; headers: IncomingHttpHeaders; closed: boolean }[] = [];
  readonly server: Server = createServer((_req, res) => res.end());
  private readonly wss = new WebSocketServer({ server: this.server });

  constructor() {
    this.wss.on('connection', (ws, req) => {
      const seen = { url: req.url ?? '', headers: req.headers, closed: false };
      this.seen.push(seen);
      ws.once('close', () => (seen.closed = true));
      ws.send('hello from upstream');
      ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket & { received: string[] }> {
  const ws = Object.assign(new WebSocket(url, { headers }), { received: [] as string[] });
  ws.on('message', (data) => ws.received.push(data.toString()));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) =>
      reject(
        new Error(`upgrade answered ${res.statusCode}${res.headers['retry-after'] ? ` retry-after ${res.headers['retry-after']}` : ''}`),
      ),
    );
  });
}

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let under: AuthUnderTest;
let echo: EchoRealtime;
let echoEdge: Awaited<ReturnType<typeof startTestGateway>>;
let downEdge: Awaited<ReturnType<typeof startTestGateway>>;
let realtime: RunningRealtime;
let realEdge: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  under = await startTestAuth();
  echo = new EchoRealtime();
  echoEdge = await startTestGateway(under, { REALTIME_HTTP_URL: await echo.start() });
  downEdge = await startTestGateway(under, { REALTIME_HTTP_URL: `http://127.0.0.1:${await closedPort()}` });
  realtime = await startRealtime(
    realtimeConfigSchema.parse({
      HTTP_PORT: '0',
      LOG_LEVEL: 'silent',
      ...under.stores,
      AUTH_GRPC_ADDR: `127.0.0.1:${under.auth.grpcPort}`,
      INTERNAL_TOKEN_PUBLIC_KEY: under.keys.publicKey,
      REPLICA_ID: unique('rt'),
      PUBLIC_GATEWAY_URL: 'ws://kith.example/gateway',
      SHUTDOWN_GRACE_MS: '100',
    }),
  );
  realEdge = await startTestGateway(under, { REALTIME_HTTP_URL: `http://127.0.0.1:${realtime.httpPort}` });
});

afterAll(async () => {
  await stopAll(echoEdge?.closers, downEdge?.closers, realEdge?.closers, realtime?.closers, under?.auth.closers);
  await echo?.close();
  // The test replica's durable consumer: a real replica keeps its own, this one never comes back.
  if (realtime) {
    const nc = await connect({ servers: under.stores.NATS_URL });
    await (await nc.jetstreamManager()).consumers.delete(EVENTS_STREAM, realtime.consumerName).catch(() => undefined);
    await nc.close();
  }
});

const wsBase = (edge: { port: number }) => `ws://127.0.0.1:${edge.port}`;

describe('WebSocket upgrades at the edge', () => {
  it('when a socket opens /gateway through the edge, then bytes flow both ways unchanged', async () => {
    const ws = await open(`${wsBase(echoEdge)}/gateway?v=9&encoding=json`);
    ws.send('ping');
    ws.send(Buffer.from([0, 1, 2, 255]));
    await until(() => ws.received.length === 3);
    expect(ws.received.slice(0, 2)).toEqual(['hello from upstream', 'ping']);
    ws.close();
  });

  it('when the client sends internal or forwarding headers, then realtime sees the edge’s own instead, and the path and query as sent', async () => {
    const ws = await open(`${wsBase(echoEdge)}/gateway/?v=10&encoding=json&compress=zlib-stream`, {
      'x-internal-identity': 'forged',
      'x-internal-anything': 'forged',
      'x-forwarded-for': '203.0.113.9',
      'x-request-id': 'mine',
    });
    await until(() => echo.seen.length > 0 && ws.received.length > 0);
    const { url, headers } = echo.seen.at(-1)!;
    expect(url).toBe('/gateway/?v=10&encoding=json&compress=zlib-stream');
    expect(Object.keys(headers).filter((h) => h.startsWith('x-internal-'))).toEqual([]);
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    ws.close();
  });

  it('when the client goes away, then the upstream socket is closed too', async () => {
    const ws = await open(`${wsBase(echoEdge)}/gateway?id=${unique()}`);
    await until(() => ws.received.length > 0);
    const upstream = echo.seen.find((s) => s.url === new URL(ws.url).pathname + new URL(ws.url).search)!;
    expect(upstream.closed).toBe(false);
    ws.terminate();
    await until(() => upstream.closed);
  });

  it('when realtime is down, then the upgrade is answered 503 with Retry-After', async () => {
    await expect(open(`${wsBase(downEdge)}/gateway?v=9`)).rejects.toThrow('upgrade answered 503 retry-after 1');
  });

  it('when a socket opens any other path, then 404', async () => {
    for (const path of ['/api/v9/gateway', '/gatewayx', '/', '/gateway/bot']) {
      await expect(open(`${wsBase(echoEdge)}${path}`), path).rejects.toThrow('upgrade answered 404');
    }
  });
});

describe('the realtime service behind the edge', () => {
  it('when GET /api/v9/gateway is asked without a token, then it answers the public socket URL', async () => {
    const res = await call(realEdge.base, '/api/v9/gateway');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: 'ws://kith.example/gateway' });
  });

  it('when GET /api/v9/gateway/bot is asked with or without a token, then it answers the URL, one shard and the start limit', async () => {
    const user = await registerUser(realEdge.base);
    const expected = {
      url: 'ws://kith.example/gateway',
      shards: 1,
      session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
    };
    for (const authorization of [undefined, user.token]) {
      const res = await call(realEdge.base, '/api/v10/gateway/bot', authorization ? { authorization } : {});
      expect(res.status, authorization ?? 'anonymous').toBe(200);
      expect(res.body).toEqual(expected);
    }
  });

  it('when a client identifies through the edge, then it gets Hello and READY for its user', async () => {
    const user = await registerUser(realEdge.base);
    const ws = await open(`${wsBase(realEdge)}/gateway?v=9&encoding=json`);
    await until(() => ws.received.length === 1);
    expect(JSON.parse(ws.received[0]!)).toMatchObject({ op: 10, d: { heartbeat_interval: 41250 } });
    ws.send(JSON.stringify({ op: 2, d: { token: user.token, properties: {} } }));
    await until(() => ws.received.length === 2);
    expect(JSON.parse(ws.received[1]!)).toMatchObject({ op: 0, t: 'READY', s: 1, d: { user: { username: user.username } } });
    ws.close();
  });

  it('when the edge shuts down, then the sockets it relays are cut', async () => {
    const edge = await startTestGateway(under, { REALTIME_HTTP_URL: `http://127.0.0.1:${realtime.httpPort}` });
    const ws = await open(`${wsBase(edge)}/gateway?v=9&encoding=json`);
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));
    await stopAll(edge.closers);
    expect(await closed).toBe(1006);
  });
});
