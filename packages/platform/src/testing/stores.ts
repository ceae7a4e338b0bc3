import { createConnection } from 'node:net';
import type {} from 'vitest';

/** Where the tests' PostgreSQL, Redis and NATS are. */
export interface TestStores {
  DATABASE_URL: string;
  REDIS_URL: string;
  NATS_URL: string;
}

// Tests read the stores with `inject('stores')`; the global setup provides them.
declare module 'vitest' {
  export interface ProvidedContext {
    stores: TestStores;
  }
}

const DEFAULTS: TestStores = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  REDIS_URL: 'redis://127.0.0.1:6379',
  NATS_URL: 'nats://127.0.0.1:4222',
};

function answers(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || defaultPort) });
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * Each store's URL: from the environment when set; else this machine's own server when one answers
 * on the standard port; else a container, when a Docker engine answers. Otherwise the run stops
 * with a message naming what is missing.
 */
export async function resolveTestStores(
  env: Record<string, string | undefined> = process.env,
): Promise<{ stores: TestStores; stop: () => Promise<void> }> {
  const stores = { ...DEFAULTS };
  const missing: (keyof TestStores)[] = [];
  const ports: Record<keyof TestStores, number> = { DATABASE_URL: 5432, REDIS_URL: 6379, NATS_URL: 4222 };
  for (const key of Object.keys(DEFAULTS) as (keyof TestStores)[]) {
    const fromEnv = env[key];
    if (fromEnv) stores[key] = fromEnv;
    else if (!(await answers(DEFAULTS[key], ports[key]))) missing.push(key);
  }
  if (missing.length === 0) return { stores, stop: async () => undefined };
  return startContainers(stores, missing);
}

async function startContainers(stores: TestStores, missing: (keyof TestStores)[]) {
  let testcontainers: typeof import('testcontainers');
  try {
    testcontainers = await import('testcontainers');
  } catch {
    throw missingMessage(missing, 'testcontainers is not installed');
  }
  const started: { stop(): Promise<unknown> }[] = [];
  try {
    for (const key of missing) {
      if (key === 'DATABASE_URL') {
        const c = await new testcontainers.GenericContainer('postgres:15')
          .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
          .withExposedPorts(5432)
          .withWaitStrategy(testcontainers.Wait.forLogMessage(/ready to accept connections/, 2))
          .start();
        started.push(c);
        stores.DATABASE_URL = `postgres://postgres@${c.getHost()}:${c.getMappedPort(5432)}/postgres`;
      } else if (key === 'REDIS_URL') {
        const c = await new testcontainers.GenericContainer('redis:7').withExposedPorts(6379).start();
        started.push(c);
        stores.REDIS_URL = `redis://${c.getHost()}:${c.getMappedPort(6379)}`;
      } else {
        const c = await new testcontainers.GenericContainer('nats:2.10').withCommand(['-js']).withExposedPorts(4222).start();
        started.push(c);
        stores.NATS_URL = `nats://${c.getHost()}:${c.getMappedPort(4222)}`;
      }
    }
  } catch (err) {
    await Promise.all(started.map((c) => c.stop().catch(() => undefined)));
    throw missingMessage(missing, err instanceof Error ? err.message : String(err));
  }
  return { stores, stop: async () => void (await Promise.all(started.map((c) => c.stop()))) };
}

function missingMessage(missing: string[], reason: string): Error {
  return new Error(
    `The tests need real servers. Not reachable: ${missing.join(', ')}.\n` +
      `Set ${missing.join(', ')} to running servers (PostgreSQL, Redis, NATS with JetStream), or start them on their standard ports, ` +
      `or run a Docker engine for testcontainers (${reason}).`,
  );
}
