import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { inject } from 'vitest';
import type { Closer } from '@kith/platform';
import { testDbPrefix, testKeys, unique, type TestStores } from '@kith/platform/testing';
import { startAuth, type RunningAuth } from '../../../services/auth/src/app.js';
import { authConfigSchema } from '../../../services/auth/src/config.js';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { gatewayConfigSchema } from '../../src/config.js';

/** The auth service's database, as `DB_PREFIX` below names it. */
export const AUTH_DATABASE = `${testDbPrefix()}_auth`;

/** One real auth service and the key pair the edge signs identities with. */
export interface AuthUnderTest {
  stores: TestStores;
  keys: { publicKey: string; privateKey: string };
  auth: RunningAuth;
  /** Names the databases: `<dbPrefix>_auth`, and any other service a test starts beside it. */
  dbPrefix: string;
}

/** `env` overrides stores or config keys, e.g. a private NATS_URL with a DB_PREFIX of its own. */
export async function startTestAuth(env: Partial<TestStores> & { DB_PREFIX?: string } = {}): Promise<AuthUnderTest> {
  const stores = { ...inject('stores'), ...env };
  const keys = testKeys();
  const config = authConfigSchema.parse({
    DB_PREFIX: testDbPrefix(),
    ...stores,
    HTTP_PORT: '0',
    GRPC_PORT: '0',
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKey,
  });
  return { stores, keys, auth: await startAuth(config), dbPrefix: config.DB_PREFIX };
}

/**
 * An in-process gateway in front of that auth; `env` adds or overrides its config keys. Its rate
 * limits are counted under a Redis prefix of its own (two replicas share one by passing the same
 * REDIS_PREFIX), and raised a thousandfold: every test here is one address, and the limits have
 * tests of their own, which pass RATE_LIMITS_SCALE=1 for the production table.
 */
export async function startTestGateway(under: AuthUnderTest, env: Record<string, string> = {}): Promise<RunningGateway & { base: string }> {
  const config = gatewayConfigSchema.parse({
    PORT: '0',
    LOG_LEVEL: 'silent',
    NATS_URL: under.stores.NATS_URL,
    REDIS_URL: under.stores.REDIS_URL,
    REDIS_PREFIX: `${unique('gw')}:`,
    RATE_LIMITS_SCALE: '1000',
    AUTH_HTTP_URL: `http://127.0.0.1:${under.auth.httpPort}`,
    AUTH_GRPC_ADDR: `127.0.0.1:${under.auth.grpcPort}`,
    INTERNAL_TOKEN_PRIVATE_KEY: under.keys.privateKey,
    ...env,
  });
  const gateway = await startGateway(config);
  return { ...gateway, base: `http://127.0.0.1:${gateway.port}` };
}

/** Resolves once the gateway trusts its revocation feed (connected, subscribed, PONG seen). */
export async function feedLive(gateway: RunningGateway, giveUpMs = 10_000): Promise<void> {
  const since = performance.now();
  while (!gateway.tokens.feedIsLive) {
    if (performance.now() - since > giveUpMs) throw new Error(`the revocation feed is not live after ${giveUpMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Runs closers in their order, every one even if an earlier one failed. */
export async function stopAll(...closerLists: (Closer[] | undefined)[]): Promise<void> {
  for (const closers of closerLists) for (const close of closers ?? []) await close().catch(() => undefined);
}

/** A port nothing listens on: a service that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Answer<T = unknown> {
  status: number;
  headers: IncomingHttpHeaders;
  body: T;
  text: string;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  token?: string;
  /** The Authorization header as sent; overrides `token`. */
  authorization?: string;
  json?: unknown;
  headers?: Record<string, string>;
  /** An undici Agent bound to another loopback address, to call as another client. */
  dispatcher?: Dispatcher;
}

/** One HTTP exchange with the gateway; the body is parsed when it is JSON. */
export async function call<T = unknown>(base: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const authorization = options.authorization ?? options.token;
  if (authorization !== undefined) headers.authorization = authorization;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const res = await request(base + path, {
    method: options.method ?? (options.json === undefined ? 'GET' : 'POST'),
    headers,
    body: options.json === undefined ? null : JSON.stringify(options.json),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  const text = await res.body.text();
  const isJson = String(res.headers['content-type'] ?? '').includes('application/json');
  return { status: res.statusCode, headers: res.headers, text, body: (isJson && text ? JSON.parse(text) : text) as T };
}

export interface TestUser {
  email: string;
  password: string;
  username: string;
  /** The session register created. */
  token: string;
}

/** A new user of its own, registered through the gateway. */
export async function registerUser(base: string): Promise<TestUser> {
  const username = unique('gw');
  const user = { email: `${username}@example.com`, password: `pw-${unique()}`, username };
  const res = await call<{ token: string }>(base, '/api/v9/auth/register', {
    json: { ...user, date_of_birth: '1990-01-01', consent: true },
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${res.text}`);
  return { ...user, token: res.body.token };
}

/** A further session of the user. */
export async function login(base: string, user: TestUser): Promise<{ token: string; userId: string }> {
  const res = await call<{ token: string; user_id: string }>(base, '/api/v9/auth/login', {
    json: { login: user.email, password: user.password },
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${res.text}`);
  return { token: res.body.token, userId: res.body.user_id };
}

/** A registered user with a session of its own and its id: what most stack tests act as. */
export type StackUser = TestUser & { userId: string };

/** A new user registered through the edge at `stack.base`, logged in once more for a fresh session. */
export async function newUser(stack: { base: string }): Promise<StackUser> {
  const user = await registerUser(stack.base);
  const { userId } = await login(stack.base, user);
  return { ...user, userId };
}

/** One request through the edge as `user` (or anonymous): `api(stack, alice, 'POST', '/guilds', {...})`. */
// Tests read the bodies freely, as every stack's `Body` lets them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function api<T = any>(
  stack: { base: string },
  user: { token: string } | null,
  method: NonNullable<CallOptions['method']>,
  path: string,
  json?: unknown,
  headers?: Record<string, string>,
): Promise<Answer<T>> {
  return call<T>(stack.base, `/api/v9${path}`, {
    method,
    ...(user ? { token: user.token } : {}),
    ...(json !== undefined ? { json } : {}),
    ...(headers ? { headers } : {}),
  });
}

/**
 * The config every service started beside `under` shares: its stores, free ports, the run's
 * database prefix, the edge's public key and auth's gRPC address. Spread it, then add the
 * service's own keys.
 */
export function serviceEnv(under: AuthUnderTest): Record<string, string> {
  return {
    ...under.stores,
    HTTP_PORT: '0',
    GRPC_PORT: '0',
    DB_PREFIX: under.dbPrefix,
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN_PUBLIC_KEY: under.keys.publicKey,
    AUTH_GRPC_ADDR: `127.0.0.1:${under.auth.grpcPort}`,
  };
}

/** What the tiny upstream saw of one request. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bytes: number;
  sha256: string;
}

/**
 * A stand-in service on a real socket, to see exactly what the edge forwards. Paths (after the
 * edge has stripped `/api/vN`) under `/users/@me/relationships/`:
 * `echo` answers what it received; `stream` sends one line, then the next when `release()` is
 * called; `download?bytes=N` streams N bytes; `slow` holds its answer for 10 s.
 */
export class TinyUpstream {
  readonly seen: Seen[] = [];
  private server!: Server;
  private releaseStream: (() => void) | undefined;

  static async start(): Promise<TinyUpstream> {
    const upstream = new TinyUpstream();
    upstream.server = createServer((req, res) => void upstream.handle(req, res));
    await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve));
    return upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Lets a waiting `stream` answer finish. */
  release(): void {
    this.releaseStream?.();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of req as Readable) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    const seen: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bytes, sha256: hash.digest('hex') };
    this.seen.push(seen);
    const path = (req.url ?? '').split('?')[0];
    if (path === '/users/@me/relationships/stream') return this.stream(res);
    if (path === '/users/@me/relationships/download') return download(res, Number(new URL(req.url!, this.url).searchParams.get('bytes')));
    if (path === '/users/@me/relationships/slow') {
      const timer = setTimeout(() => res.end('late'), 10_000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-upstream', 'tiny');
    res.end(JSON.stringify(seen));
  }

  private stream(res: ServerResponse): void {
    res.setHeader('content-type', 'text/plain');
    res.write('first\n');
    this.releaseStream = () => res.end('second\n');
  }
}

function download(res: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'k');
  let left = total;
  res.setHeader('content-type', 'application/octet-stream');
  const pump = (): void => {
    while (left > 0) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}
