import { createClient, createDatabase, databaseUrl, type Identity, type Kysely, type ServiceClient } from '@kith/platform';
import { testDbPrefix, testKeys, testSigner, unique, type TestStores } from '@kith/platform/testing';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { expect, inject } from 'vitest';
import { startAuth } from '../../src/app.js';
import { authConfigSchema } from '../../src/config.js';
import type { AuthDatabase } from '../../src/store/schema.js';

declare module 'vitest' {
  export interface ProvidedContext {
    stores: TestStores;
  }
}

/** Every test file's auth instance shares one database; each test makes its own users. */
export const DB_PREFIX = testDbPrefix();
export const PASSWORD = 'correct horse battery staple';

export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  /** Who the gateway says is calling; anonymous when absent. */
  identity?: Partial<Identity>;
  /** The exact `x-internal-identity` header to send instead, or null to send none. */
  identityHeader?: string | null;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, labelled application/json. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** A registered user and the session its registration opened. */
export interface Account {
  userId: string;
  sessionId: string;
  token: string;
  username: string;
  email: string;
  password: string;
  identity: Partial<Identity>;
}

export type AuthClient = ServiceClient<typeof AuthService>;

/** A fresh, valid registration body; overrides replace (or, when undefined, remove) fields. */
export function registration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    username: unique('u'),
    email: `${unique('e')}@example.com`,
    password: PASSWORD,
    date_of_birth: '1990-01-01',
    consent: true,
    ...overrides,
  };
  for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key];
  return body;
}

/** The codes of the form errors at a dotted path of a 50035 body (`""` for the request itself). */
export function fieldErrorCodes(body: unknown, path: string): string[] {
  let node = (body as { errors?: unknown }).errors;
  for (const key of path ? path.split('.') : []) node = (node as Record<string, unknown> | undefined)?.[key];
  const errors = (node as { _errors?: { code: string }[] } | undefined)?._errors ?? [];
  return errors.map((e) => e.code);
}

/** Asserts a 400 50035 whose errors name exactly these fields, each with this one code. */
export function expectFormError(reply: Reply, expected: Record<string, string>): void {
  expect(reply.status).toBe(400);
  expect(reply.body).toMatchObject({ code: 50035, message: 'Invalid Form Body' });
  expect(Object.keys((reply.body as { errors: object }).errors).sort()).toEqual(Object.keys(expected).sort());
  for (const [field, code] of Object.entries(expected)) expect(fieldErrorCodes(reply.body, field), field).toEqual([code]);
}

/** The auth service started in-process on free ports, with a client for each of its doors. */
export class AuthHarness {
  private database: Kysely<AuthDatabase> | undefined;

  private constructor(
    readonly stores: TestStores,
    readonly httpPort: number,
    readonly grpcPort: number,
    readonly grpc: AuthClient,
    readonly sign: (audience: string, identity?: Partial<Identity>) => Promise<string>,
    private readonly closers: (() => Promise<unknown>)[],
    /** The service's database: `<DB_PREFIX>_auth`. */
    readonly databaseName: string,
    /** This harness's own Redis key prefix. */
    readonly redisPrefix: string,
  ) {}

  static async start(config: Record<string, unknown> = {}): Promise<AuthHarness> {
    const stores = inject('stores');
    const keys = testKeys();
    const parsed = authConfigSchema.parse({
      HTTP_PORT: 0,
      GRPC_PORT: 0,
      DB_PREFIX,
      ...stores,
      INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKey,
      LOG_LEVEL: 'silent',
      // Counters, tickets and codes live in Redis with windows up to an hour: each harness gets its
      // own prefix so a rerun (or CI right after a local run) never inherits another run's counts.
      REDIS_PREFIX: `kith:test:${unique('auth')}:`,
      // Every file logs in from 127.0.0.1: failure limits only where a test asks (abuse.test.ts).
      LOGIN_FAILURES_PER_ACCOUNT: 10_000,
      LOGIN_FAILURES_PER_SOURCE: 10_000,
      LOGIN_FAILURES_PER_IP: 10_000,
      MFA_FAILURES_PER_ACCOUNT: 10_000,
      PASSWORD_FAILURES_PER_ACCOUNT: 10_000,
      // Forgot Password's limits likewise: only recovery-phone.test.ts sets them low.
      FORGOT_PER_LOGIN: 10_000,
      FORGOT_PER_IP: 10_000,
      ...config,
    });
    const auth = await startAuth(parsed);
    const grpc = createClient(AuthService, `127.0.0.1:${auth.grpcPort}`);
    const signer = await testSigner(keys.privateKey);
    return new AuthHarness(
      stores,
      auth.httpPort,
      auth.grpcPort,
      grpc,
      signer,
      auth.closers,
      `${parsed.DB_PREFIX}_auth`,
      parsed.REDIS_PREFIX,
    );
  }

  /** Stops the client, then the service in its own shutdown order. */
  async close(): Promise<void> {
    this.grpc.close();
    await this.database?.destroy();
    for (const close of this.closers) await close();
  }

  /** The service's own database, for arranging states the API cannot reach (legacy or disabled accounts). */
  get db(): Kysely<AuthDatabase> {
    this.database ??= createDatabase<AuthDatabase>({ url: databaseUrl(this.stores.DATABASE_URL, this.databaseName), maxConnections: 2 });
    return this.database;
  }

  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    const identity = opts.identityHeader === undefined ? await this.sign('auth', opts.identity ?? {}) : opts.identityHeader;
    if (identity !== null) headers['x-internal-identity'] = identity;
    let body: string | undefined;
    if (opts.rawBody !== undefined || opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = opts.rawBody ?? JSON.stringify(opts.body);
    }
    const res = await fetch(`http://127.0.0.1:${this.httpPort}${path}`, { method, headers, body });
    const text = await res.text();
    const parsed: unknown = res.headers.get('content-type')?.includes('application/json') ? JSON.parse(text) : text;
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** Who a token belongs to, as the gateway would learn it. */
  async identityOf(token: string, clientIp = '127.0.0.1'): Promise<Partial<Identity>> {
    const answer = await this.grpc.validateToken({ token, clientIp });
    expect(answer.valid).toBe(true);
    return { userId: answer.userId, sessionId: answer.sessionId, clientIp };
  }

  /** Registers a new user (201 expected) and resolves its token to its user and session. */
  async register(overrides: Record<string, unknown> = {}, opts: Omit<RequestOptions, 'body'> = {}): Promise<Account> {
    const body = registration(overrides);
    const reply = await this.request<{ token: string }>('POST', '/auth/register', { ...opts, body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const identity = await this.identityOf(reply.body.token);
    return {
      userId: identity.userId!,
      sessionId: identity.sessionId!,
      token: reply.body.token,
      username: body.username as string,
      email: body.email as string,
      password: body.password as string,
      identity,
    };
  }

  /** Logs in (200 expected) and resolves the new token to its identity. */
  async login(login: string, password: string, opts: Omit<RequestOptions, 'body'> = {}) {
    const reply = await this.request<{ token: string; user_id: string }>('POST', '/auth/login', { ...opts, body: { login, password } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return { token: reply.body.token, identity: await this.identityOf(reply.body.token) };
  }

  /** The caller's sessions as GET /auth/sessions lists them. */
  async sessions(identity: Partial<Identity>) {
    const reply = await this.request<{ user_sessions: SessionView[] }>('GET', '/auth/sessions', { identity });
    expect(reply.status).toBe(200);
    return reply.body.user_sessions;
  }
}

export interface SessionView {
  id_hash: string;
  approx_last_used_time: string;
  client_info: { os: string | null; platform: string | null; location: string | null };
}
