// Starting and always stopping what a benchmark needs: the whole system as `npm start` runs it
// (scripts/start.mjs) on its own ports and databases, and baseline servers from bench/servers.
// Everything started here is stopped by stopEverything(), which also runs on SIGINT/SIGTERM, and
// is SIGKILLed on any other exit.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processes } from '../../scripts/processes.mjs';
import { childPids, pidAlive, pidsNamed, systemProcesses } from './proc.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const benchDir = fileURLToPath(new URL('..', import.meta.url));

export const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Ports ≥ 1024 that fetch() refuses to connect to (https://fetch.spec.whatwg.org/#port-blocking). */
const FETCH_BLOCKED_PORTS = new Set([
  1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** A positive number from the environment, or the fallback; anything else ends the run. */
export function positive(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
}

/** The started system's LOG_LEVEL: warn keeps its logging out of what is measured. */
export const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'warn';

/** BENCH_CPU_PROF as an absolute directory: the started processes write a .cpuprofile there on exit. */
export const CPU_PROF_DIR = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;

/**
 * NODE_OPTIONS that preload these modules (file URLs) into every process the start script spawns,
 * after whatever NODE_OPTIONS this process got.
 */
export function preloadOptions(urls) {
  return [process.env.NODE_OPTIONS, ...urls.map((u) => `--import ${u}`)].filter(Boolean).join(' ');
}

/**
 * The environment and preload (bench/cpu-prof.mjs) that make each started process write a CPU
 * profile into `dir`, which is created. NODE_OPTIONS refuses --cpu-prof, hence the preload.
 */
export function cpuProfPreload(dir) {
  mkdirSync(dir, { recursive: true });
  return { env: { BENCH_CPU_PROF_DIR: dir }, url: new URL('../cpu-prof.mjs', import.meta.url).href };
}

/**
 * The environment startSystem needs for BENCH_CPU_PROF: with it set, every started process writes a
 * CPU profile there (cpuProfPreload); without it, nothing.
 */
export function cpuProfEnv() {
  if (!CPU_PROF_DIR) return {};
  const profile = cpuProfPreload(CPU_PROF_DIR);
  return { ...profile.env, NODE_OPTIONS: preloadOptions([profile.url]) };
}

/** Ends the run before anything starts when one of these built files (paths from the root) is missing. */
export function requireBuilt(dists, hint = 'build first (npm run build)') {
  for (const dist of dists) if (!existsSync(path.join(root, dist))) throw new Error(`${dist} is missing: ${hint}`);
}

/** What the report says about the machine a run measured on; loadavgAtEnd is read now. */
export function machineInfo(loadavgAtStart) {
  return {
    nproc: os.availableParallelism(),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model?.trim() ?? 'unknown CPU',
    totalMemMiB: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadavgAtStart,
    loadavgAtEnd: os.loadavg(),
  };
}

/** Writes the raw numbers of a run to bench/results/<file>. */
export function saveResults(file, report) {
  mkdirSync(path.join(benchDir, 'results'), { recursive: true });
  writeFileSync(path.join(benchDir, 'results', file), `${JSON.stringify(report, null, 2)}\n`);
}

/**
 * The stack's keys, made here so the bench can act as one of its processes: an Ed25519 pair to
 * sign internal identities, and the service key gRPC calls are signed with (`serviceKey`).
 */
export function makeKeys() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    serviceKey: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }),
  };
}

/** Everything this run started, so it can always be stopped. */
const started = { system: undefined, baselines: [], cleanups: [] };

/** Keeps the last lines a child printed, to show when something goes wrong. */
export function collect(child, label, keep = 200) {
  const lines = [];
  let count = 0;
  const onData = (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      count++;
      lines.push(`${label} ${line}`);
      if (lines.length > keep) lines.shift();
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    tail: () => lines.join('\n'),
    get count() {
      return count;
    },
  };
}

const alive = (child) => child.exitCode === null && child.signalCode === null;

function waitExit(child, ms) {
  if (!alive(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** A port somebody already listens on would make the system fail to start, or measure the wrong thing. */
function portBusy(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * CPU groups of a started system for cpuMeter: the start script, each process it spawned (by
 * name), `extra` (baselines, say) and the stores it talks to. Re-read at every snapshot, so a
 * process restarted meanwhile is still counted.
 */
export function systemCpuGroups(system, extra = {}) {
  const groups = { 'start script': [system.child.pid], ...extra };
  for (const row of systemProcesses(root, system.child.pid, system.list)) (groups[row.name] ??= []).push(row.pid);
  groups.postgres = pidsNamed('postgres');
  groups['redis-server'] = pidsNamed('redis-server');
  groups['nats-server'] = pidsNamed('nats-server');
  return groups;
}

/**
 * Starts scripts/start.mjs with the given port offset, DB_PREFIX and LOG_LEVEL; `env` is added
 * to the environment (NODE_OPTIONS preloads, for instance). Resolves once it prints "Kith is up".
 */
export async function startSystem({ offset, dbPrefix, logLevel, keys, env: extraEnv = {}, timeoutMs = 120_000 }) {
  const list = processes(offset);
  for (const p of list) {
    for (const port of Object.values(p.env).map(Number).filter(Number.isInteger)) {
      if (FETCH_BLOCKED_PORTS.has(port))
        throw new Error(`port ${port} (${p.name}) is one fetch() refuses to use: pick another port offset`);
      if (await portBusy(port)) throw new Error(`port ${port} (${p.name}) is already in use: is another bench stack running?`);
    }
  }
  const env = {
    ...process.env,
    KITH_PORT_OFFSET: String(offset),
    DB_PREFIX: dbPrefix,
    LOG_LEVEL: logLevel,
    // A benchmark drives thousands of requests a second from one address and a few tokens: the
    // edge still counts every one (the limiter's work is measured), against limits raised out of
    // reach. bench/rate-limits.mjs measures the production table itself.
    RATE_LIMITS_SCALE: '1000000',
    INTERNAL_TOKEN_PRIVATE_KEY: keys.privateKey,
    INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKey,
    SERVICE_TOKEN_KEY: keys.serviceKey,
    ...extraEnv,
  };
  // The bench's own gRPC calls to the services (ValidateToken, seeding) are signed as the stack's are.
  const { configureServiceCalls } = await import('@kith/platform');
  configureServiceCalls(keys.serviceKey, 'bench');
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collect(child, 'system |');
  started.system = { child, output, list, pids: [] };
  const baseUrl = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`the system was not up within ${timeoutMs / 1000} s`)), timeoutMs);
    child.stdout.on('data', (chunk) => {
      text = (text + chunk.toString()).slice(-4096);
      const match = /Kith is up: (\S+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the start script exited (${signal ?? code}) before the system was up`));
    });
  });
  started.system.pids = childPids(child.pid);
  return { baseUrl, child, list, output };
}

/** The system's output so far (for failures). */
export const systemTail = (n = 40) => started.system?.output.tail().split('\n').slice(-n).join('\n');

async function stopSystem() {
  const system = started.system;
  if (!system) return;
  started.system = undefined;
  const { child } = system;
  const pids = new Set([...system.pids, ...(alive(child) ? childPids(child.pid) : [])]);
  if (alive(child)) {
    log('stopping the system (SIGINT to the start script)…');
    child.kill('SIGINT');
    // The start script gives its children 20 s before it kills them itself.
    if (!(await waitExit(child, 25_000))) {
      log('the start script did not stop in 25 s: killing it');
      child.kill('SIGKILL');
    }
  }
  for (const pid of pids) {
    if (pidAlive(pid)) {
      log(`process ${pid} outlived the start script: killing it`);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** Starts bench/servers/<file> and resolves with its URL once it printed {"port": N}. */
export async function startBaseline(name, file) {
  const child = spawn(process.execPath, [path.join(benchDir, 'servers', file)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collect(child, `${name} |`);
  started.baselines.push(child);
  const port = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not listen within 10 s:\n${output.tail()}`)), 10_000);
    child.stdout.on('data', (chunk) => {
      text += chunk.toString();
      const line = text.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).port);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before listening:\n${output.tail()}`));
    });
  });
  return { child, port, url: `http://127.0.0.1:${port}/` };
}

async function stopBaselines() {
  const list = started.baselines.splice(0);
  await Promise.all(
    list.map(async (child) => {
      if (!alive(child)) return;
      child.kill('SIGTERM');
      if (!(await waitExit(child, 3_000))) child.kill('SIGKILL');
    }),
  );
}

/** Something else to undo when the run ends (close sockets, remove a temp dir): runs before the processes stop. */
export function onCleanup(fn) {
  started.cleanups.push(fn);
}

let stopping;
/** True once the run is being stopped (Ctrl-C, failure, timeout): long loops should end. */
export const isStopping = () => stopping !== undefined;

export function stopEverything() {
  stopping ??= (async () => {
    for (const fn of started.cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        log(`cleanup failed: ${err.message}`);
      }
    }
    await Promise.allSettled([stopBaselines(), stopSystem()]);
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping everything`);
    stopEverything().then(() => process.exit(130));
  });
}
// Last resort if this process dies some other way: nothing it started may outlive it.
process.on('exit', () => {
  for (const child of started.baselines) if (alive(child)) child.kill('SIGKILL');
  const system = started.system;
  if (system && alive(system.child)) {
    for (const pid of system.pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    system.child.kill('SIGKILL');
  }
});

/**
 * Runs a benchmark's main() (which resolves with the exit code), shows the system's last lines
 * when it fails, always stops everything, and exits. With `timeoutS`, a run that takes longer is
 * stopped and exits 124.
 */
export async function runMain(main, { timeoutS } = {}) {
  if (timeoutS !== undefined) {
    const watchdog = setTimeout(() => {
      log(`the run took longer than BENCH_TIMEOUT=${timeoutS} s: stopping everything`);
      stopEverything().then(() => process.exit(124));
    }, timeoutS * 1000);
    watchdog.unref();
  }
  let code = 1;
  try {
    code = await main();
  } catch (err) {
    log(`failed: ${err.stack ?? err.message}`);
    const tail = systemTail(40);
    if (tail) process.stderr.write(`\nlast lines of the system:\n${tail}\n`);
  } finally {
    await stopEverything();
  }
  process.exit(code);
}
