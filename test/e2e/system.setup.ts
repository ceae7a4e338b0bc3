import { generateKeyPairSync } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { resolveTestStores, testDbPrefix } from '@kith/platform/testing';
import { TRUSTED_PROXY } from './addresses.js';
import { startInbox } from './inbox.server.js';
import { startSystem } from './system.js';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    gatewayOrigin: string;
    /** DB_PREFIX the system was started with: its databases are `<dbPrefix>_<service>`. */
    dbPrefix: string;
    /** KITH_PORT_OFFSET the system was started with (scripts/processes.mjs adds it to every port). */
    portOffset: number;
    /** Where tests read the mails and texts the system sent (test/e2e/inbox.ts). */
    inboxUrl: string;
    /** The system's SERVICE_TOKEN_KEY: tests that call a service's gRPC sign with it (service-calls.setup.ts). */
    serviceTokenKey: string;
  }
}

/**
 * Far from the development ports, so the tests run beside a stack someone started by hand: HTTP on
 * 19080–19108 (below Linux's ephemeral range, 32768–60999) and gRPC on 61051–61058 (above it), so
 * no outgoing connection of this machine can already hold one of them. `E2E_PORT_OFFSET` and
 * `E2E_DB_PREFIX` let two checkouts run their end-to-end tests at once.
 */
const PORT_OFFSET = Number(process.env.E2E_PORT_OFFSET ?? 11000);

/** What the end-to-end system runs with beyond the stores' URLs. */
export const SYSTEM_ENV = {
  LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
  // Every test logs in from 127.0.0.1; the per-address failure limit has tests of its own.
  LOGIN_FAILURES_PER_IP: '100000',
  // Every test is one client (127.0.0.1) to the edge, and races must reach the services at once;
  // the per-client share of a service's connections has tests of its own (gateway integration).
  UPSTREAM_PER_CLIENT: '64',
  // A request from this loopback address is a proxy's: its X-Forwarded-For names the client, so
  // tests can come from public addresses (new login locations, per-source limits).
  TRUSTED_PROXIES: TRUSTED_PROXY,
  // Every test is one address, and the hostile-input test alone sends thousands of requests
  // with one token: the edge's limits are raised a thousandfold for this stack (the production
  // table is tested by the gateway's integration tests, with @discordjs/rest among them).
  RATE_LIMITS_SCALE: '1000',
};

/** The whole system as `npm start` starts it, on its own ports and databases (see system.ts). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Fresh databases every run (the platform's global setup drops them at its end), unless a
  // prefix is asked for; read here, after that setup has claimed the run's prefix.
  const DB_PREFIX = process.env.E2E_DB_PREFIX ?? testDbPrefix('e2e');
  const { stores, stop: stopStores } = await resolveTestStores();
  // Mail and texts go to real protocol peers on loopback (SMTP, Twilio's API), which tests read.
  const inbox = await startInbox();
  // Made here, not by the start script, so the tests can call the services' gRPC as a service would.
  const serviceTokenKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const system = await startSystem({
    portOffset: PORT_OFFSET,
    dbPrefix: DB_PREFIX,
    env: { ...stores, ...SYSTEM_ENV, ...inbox.env, SERVICE_TOKEN_KEY: serviceTokenKey },
  }).catch(async (err: unknown) => {
    await inbox.close();
    await stopStores();
    throw err;
  });
  project.provide('baseUrl', system.baseUrl);
  project.provide('gatewayOrigin', new URL(system.baseUrl).origin);
  project.provide('dbPrefix', DB_PREFIX);
  project.provide('portOffset', PORT_OFFSET);
  project.provide('inboxUrl', inbox.url);
  project.provide('serviceTokenKey', serviceTokenKey);
  return async () => {
    await system.stop();
    await inbox.close();
    await stopStores();
  };
}
