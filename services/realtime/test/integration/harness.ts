import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { connect, headers as natsHeaders, type JetStreamClient, type NatsConnection } from 'nats';
import { EVENTS_STREAM, createClient, type EventEnvelope, type EventInternal } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { testServiceKey, unique } from '@kith/platform/testing';
import {
  closedPort,
  login,
  registerUser,
  startTestAuth,
  startTestGateway,
  stopAll,
  type AuthUnderTest,
  type TestUser,
} from '../../../../gateway/test/integration/harness.js';
import { startRealtime, type RunningRealtime } from '../../src/app.js';
import { realtimeConfigSchema } from '../../src/config.js';

export { closedPort, stopAll, type AuthUnderTest };

/** Real auth (PostgreSQL, Redis, NATS) and an edge in front of it, to register users through. */
export interface Stack {
  under: AuthUnderTest;
  gateway: Awaited<ReturnType<typeof startTestGateway>>;
  nats: NatsConnection;
  js: JetStreamClient;
  /** Every realtime instance started, stopped at the end unless a test stopped it already. */
  instances: RealtimeUnderTest[];
}

export interface RealtimeUnderTest extends RunningRealtime {
  /** `ws://127.0.0.1:<port>/gateway` */
  url: string;
  replicaId: string;
  stopped: boolean;
  stop(): Promise<void>;
}

/** `authEnv` adds or overrides auth's config keys. */
export async function startStack(authEnv: Record<string, string> = {}): Promise<Stack> {
  const under = await startTestAuth(authEnv as Parameters<typeof startTestAuth>[0]);
  const gateway = await startTestGateway(under);
  const nats = await connect({ servers: under.stores.NATS_URL });
  return { under, gateway, nats, js: nats.jetstream(), instances: [] };
}

/** One realtime service in this process; `env` adds or overrides config keys. */
export async function startTestRealtime(stack: Stack, env: Record<string, string> = {}): Promise<RealtimeUnderTest> {
  const replicaId = env.REPLICA_ID ?? unique('rt');
  const config = realtimeConfigSchema.parse({
    HTTP_PORT: '0',
    LOG_LEVEL: 'silent',
    REDIS_URL: stack.under.stores.REDIS_URL,
    NATS_URL: stack.under.stores.NATS_URL,
    AUTH_GRPC_ADDR: `127.0.0.1:${stack.under.auth.grpcPort}`,
    INTERNAL_TOKEN_PUBLIC_KEY: stack.under.keys.publicKey,
    SHUTDOWN_GRACE_MS: '300',
    ...env,
    REPLICA_ID: replicaId,
  });
  const running = await startRealtime(config);
  const instance: RealtimeUnderTest = {
    ...running,
    url: `ws://127.0.0.1:${running.httpPort}/gateway`,
    replicaId,
    stopped: false,
    async stop() {
      if (instance.stopped) return;
      instance.stopped = true;
      await stopAll(running.closers);
    },
  };
  stack.instances.push(instance);
  return instance;
}

/** Stops everything; the durable consumers the tests made are deleted (a real replica keeps its own). */
export async function stopStack(stack: Stack | undefined): Promise<void> {
  if (!stack) return;
  for (const instance of stack.instances) await instance.stop();
  const jsm = await stack.nats.jetstreamManager();
  for (const instance of stack.instances) await jsm.consumers.delete(EVENTS_STREAM, instance.consumerName).catch(() => undefined);
  await stack.nats.close();
  await stopAll(stack.gateway.closers, stack.under.auth.closers);
}

/** A new user with a session (from register); `login` adds more sessions of the same user. */
export async function newUser(stack: Stack): Promise<TestUser & { userId: string }> {
  const user = await registerUser(stack.gateway.base);
  const { userId } = await login(stack.gateway.base, user);
  return { ...user, userId };
}

export const newSession = (stack: Stack, user: TestUser) => login(stack.gateway.base, user);

/** Publishes an event envelope to the EVENTS stream as the outbox relay does; resolves with its stream sequence. */
export async function publishEvent(
  stack: Stack,
  event: {
    name: string;
    users?: string[];
    /** A guild audience: every member of these guilds. */
    guilds?: string[];
    data?: unknown;
    internal?: EventInternal;
    id?: string;
    headers?: Record<string, string>;
  },
): Promise<{ envelope: EventEnvelope; seq: number }> {
  const envelope: EventEnvelope = {
    id: event.id ?? randomUUID(),
    service: 'test',
    name: event.name,
    occurred_at: new Date().toISOString(),
    audience: { ...(event.users ? { users: event.users } : {}), ...(event.guilds ? { guilds: event.guilds } : {}) },
    data: event.data ?? { n: randomUUID() },
    ...(event.internal ? { internal: event.internal } : {}),
  };
  const headers = natsHeaders();
  for (const [key, value] of Object.entries(event.headers ?? {})) headers.set(key, value);
  const ack = await stack.js.publish(`events.test.${event.name}`, JSON.stringify(envelope), { msgID: envelope.id, headers });
  return { envelope, seq: ack.seq };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A bot user made as integrations makes one (auth's gRPC), with a token issued for it. */
export async function newBot(stack: Stack, name: string): Promise<{ userId: string; token: string }> {
  const client = createClient(AuthService, `127.0.0.1:${stack.under.auth.grpcPort}`);
  try {
    const { user } = await client.createBotUser({ username: name });
    const { token } = await client.resetBotToken({ userId: user!.id });
    return { userId: user!.id, token };
  } finally {
    client.close();
  }
}

/** The auth session id behind a token, as auth's gRPC tells the realtime service (events name sessions by it). */
export async function authSessionIdOf(stack: Stack, token: string): Promise<string> {
  const client = createClient(AuthService, `127.0.0.1:${stack.under.auth.grpcPort}`);
  try {
    return (await client.validateToken({ token })).sessionId;
  } finally {
    client.close();
  }
}

/**
 * The realtime service as its own process (built `dist/main.js`), for tests that kill it with
 * SIGKILL; resolves once it answers /healthz. The caller kills it.
 */
export async function spawnRealtimeProcess(
  stack: Stack,
  replicaId: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const port = await closedPort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      HTTP_PORT: String(port),
      REPLICA_ID: replicaId,
      REDIS_URL: stack.under.stores.REDIS_URL,
      NATS_URL: stack.under.stores.NATS_URL,
      AUTH_GRPC_ADDR: `127.0.0.1:${stack.under.auth.grpcPort}`,
      INTERNAL_TOKEN_PUBLIC_KEY: stack.under.keys.publicKey,
      // Its calls to this process's auth are signed with this process's key.
      SERVICE_TOKEN_KEY: testServiceKey(),
      ...env,
    },
    stdio: 'ignore',
  });
  const health = `http://127.0.0.1:${port}/healthz`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(health)).ok) return { child, url: `ws://127.0.0.1:${port}/gateway` };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${health} did not answer`);
    }
    await sleep(100);
  }
}
