import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { resolveTestStores } from '@kith/platform/testing';
import { TRUSTED_PROXY } from './addresses.js';
import { startInbox } from './inbox.server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    gatewayOrigin: string;
    /** DB_PREFIX the system was started with: its databases are `<dbPrefix>_<service>`. */
    dbPrefix: string;
    /** Where tests read the mails and texts the system sent (test/e2e/inbox.ts). */
    inboxUrl: string;
  }
}

/**
 * Far from the development ports, so the tests run beside a stack someone started by hand: HTTP on
 * 19080–19108 (below Linux's ephemeral range, 32768–60999) and gRPC on 61051–61058 (above it), so
 * no outgoing connection of this machine can already hold one of them. `E2E_PORT_OFFSET` and
 * `E2E_DB_PREFIX` let two checkouts run their end-to-end tests at once.
 */
const PORT_OFFSET = Number(process.env.E2E_PORT_OFFSET ?? 11000);
const DB_PREFIX = process.env.E2E_DB_PREFIX ?? 'kith_e2e';

/**
 * Starts the whole system exactly as `npm start` does (scripts/start.mjs, separate processes),
 * on its own databases, and stops it with SIGINT as Ctrl-C would.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { stores, stop: stopStores } = await resolveTestStores();
  // Mail and texts go to real protocol peers on loopback (SMTP, Twilio's API), which tests read.
  const inbox = await startInbox();
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: {
      ...process.env,
      ...stores,
      KITH_PORT_OFFSET: String(PORT_OFFSET),
      DB_PREFIX,
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
      // Every test logs in from 127.0.0.1; the per-address failure limit has tests of its own.
      LOGIN_FAILURES_PER_IP: '100000',
      ...inbox.env,
      // A request from this loopback address is a proxy's: its X-Forwarded-For names the client,
      // so tests can come from public addresses (new login locations, per-source limits).
      TRUSTED_PROXIES: TRUSTED_PROXY,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`system did not start within 90 s:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Kith is up: (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`system exited (${code}) before it was up:\n${output}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.pipe(process.stderr);
  project.provide('baseUrl', baseUrl);
  project.provide('gatewayOrigin', new URL(baseUrl).origin);
  project.provide('dbPrefix', DB_PREFIX);
  project.provide('inboxUrl', inbox.url);
  return async () => {
    await stopChild(child);
    await inbox.close();
    await stopStores();
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGINT');
  });
}
