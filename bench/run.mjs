#!/usr/bin/env node
// The first benchmark of Kith, in one command (`npm run bench`, which builds first):
//   1. starts the whole system exactly as `npm start` does (scripts/start.mjs), on its own ports
//      and databases, with a key pair made here so this process can sign internal identities;
//   2. starts two baselines as separate processes: raw node:http and bare express 5;
//   3. drives each scenario with autocannon (warm-up, then the measured run) in this process;
//   4. reads the resident memory of every process the start script spawned;
//   5. prints a markdown table, writes it into bench/README.md and the raw numbers into
//      bench/results/latest.json.
// Everything it starts is stopped again, also on failure or Ctrl-C. Exits non-zero when a
// scenario answered anything but 2xx or had errors.
//
// Knobs: BENCH_DURATION (seconds per scenario, default 10), BENCH_CONNECTIONS (default 10),
// BENCH_WARMUP (seconds, default 2), BENCH_SYSTEM_WARMUP (seconds of load on each system path
// before any is measured, default 8), BENCH_PORT_OFFSET (default 3000), BENCH_LOG_LEVEL (the
// system's LOG_LEVEL, default warn), BENCH_CPU_PROF=<dir> (the gateway and every service write a
// .cpuprofile there on exit), BENCH_NO_README=1 (leave bench/README.md alone).
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { processes } from '../scripts/processes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const benchDir = fileURLToPath(new URL('.', import.meta.url));

function positive(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
}

const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 2);
const SYSTEM_WARMUP_S = positive('BENCH_SYSTEM_WARMUP', 8);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
// Not 2000: the gateway would land on 10080, a port fetch() refuses ("bad port", the WHATWG fetch
// spec's blocked list), so the start script's own readiness check could never pass.
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 3000));
/** Ports ≥ 1024 that fetch() refuses to connect to (https://fetch.spec.whatwg.org/#port-blocking). */
const FETCH_BLOCKED_PORTS = new Set([
  1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'warn';
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
const START_TIMEOUT_MS = 120_000;
const QUIET_MS = 3_000;
/** Internal identities live 30 s; re-sign well before that while a scenario runs. */
const RESIGN_EVERY_MS = 10_000;

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- processes we start ---------

/** Everything this run started, so it can always be stopped. */
const started = { system: undefined, baselines: [] };

/** Keeps the last lines a child printed, to show when something goes wrong. */
function collect(child, label, keep = 200) {
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

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Direct children of a process, from /proc/<pid>/stat (field 4 is the parent pid). */
function childPids(parent) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === parent) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
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

async function startSystem(keys) {
  const list = processes(OFFSET);
  for (const p of list) {
    for (const port of Object.values(p.env).map(Number).filter(Number.isInteger)) {
      if (FETCH_BLOCKED_PORTS.has(port))
        throw new Error(`port ${port} (${p.name}) is one fetch() refuses to use: pick another BENCH_PORT_OFFSET`);
      if (await portBusy(port)) throw new Error(`port ${port} (${p.name}) is already in use: is another bench stack running?`);
    }
  }
  const env = {
    ...process.env,
    KITH_PORT_OFFSET: String(OFFSET),
    DB_PREFIX: 'kith_bench',
    LOG_LEVEL,
    INTERNAL_TOKEN_PRIVATE_KEY: keys.privateKey,
    INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKey,
  };
  if (CPU_PROF_DIR) {
    mkdirSync(CPU_PROF_DIR, { recursive: true });
    // NODE_OPTIONS refuses --cpu-prof; a preloaded module starts the profiler instead.
    env.BENCH_CPU_PROF_DIR = CPU_PROF_DIR;
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --import ${new URL('./cpu-prof.mjs', import.meta.url).href}`.trim();
  }
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collect(child, 'system |');
  started.system = { child, output, list, pids: [] };
  const baseUrl = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`the system was not up within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
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
  return { baseUrl, child, list };
}

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

async function startBaseline(name, file) {
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

let stopping;
function stopEverything() {
  stopping ??= Promise.allSettled([stopBaselines(), stopSystem()]);
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

// ---------------------------------------------------------------- memory ---------------------

function rssKiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Resident memory of the start script and of every process it spawned, named by working directory. */
function systemMemory(startPid, list) {
  const rows = [{ name: 'start script (scripts/start.mjs)', pid: startPid, kib: rssKiB(startPid) }];
  for (const pid of childPids(startPid)) {
    let name = `pid ${pid}`;
    try {
      const cwd = path.relative(root, readlinkSync(`/proc/${pid}/cwd`));
      name = list.find((p) => p.dir === cwd)?.name ?? cwd;
    } catch {
      // keep the pid as its name
    }
    rows.push({ name, pid, kib: rssKiB(pid) });
  }
  return rows;
}

// ---------------------------------------------------------------- CPU ------------------------
// Wall-clock profiles and req/s both suffer on a shared box; CPU time per request does much less,
// so each measured run also records how much CPU every process involved spent on it.

const CLK_TCK = 100; // USER_HZ: /proc reports CPU time in these ticks on every Linux we run on

function statFields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return undefined;
  }
}

/** utime + stime of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat). */
function cpuSeconds(pid) {
  const s = statFields(pid);
  return s ? (Number(s.fields[11]) + Number(s.fields[12])) / CLK_TCK : undefined;
}

function pidsNamed(comm) {
  const pids = [];
  for (const entry of readdirSync('/proc')) if (/^\d+$/.test(entry) && statFields(entry)?.comm === comm) pids.push(Number(entry));
  return pids;
}

/** Busy and total CPU seconds of the whole machine, from the first line of /proc/stat. */
function machineCpu() {
  const v = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: (total - v[3] - v[4]) / CLK_TCK, total: total / CLK_TCK };
}

/** The processes whose CPU is accounted, by label; looked up again at every snapshot. */
let cpuGroups = () => ({});

function cpuSnapshot() {
  const groups = {};
  for (const [label, pids] of Object.entries(cpuGroups())) {
    groups[label] = new Map(pids.map((pid) => [pid, cpuSeconds(pid)]).filter(([, v]) => v !== undefined));
  }
  const self = process.cpuUsage();
  return { at: performance.now(), machine: machineCpu(), bench: (self.user + self.system) / 1e6, groups };
}

/** CPU seconds each group spent between two snapshots; a process that started meanwhile counts from zero. */
function cpuDelta(before, after) {
  const wallSeconds = (after.at - before.at) / 1000;
  const seconds = { 'load generator (bench)': after.bench - before.bench };
  for (const [label, now] of Object.entries(after.groups)) {
    let sum = 0;
    for (const [pid, v] of now) sum += v - (before.groups[label]?.get(pid) ?? 0);
    seconds[label] = sum;
  }
  const busy = after.machine.busy - before.machine.busy;
  const ours = Object.values(seconds).reduce((a, b) => a + b, 0);
  return { wallSeconds, seconds, machineBusyCores: busy / wallSeconds, otherCores: Math.max(0, busy - ours) / wallSeconds };
}

// ---------------------------------------------------------------- load -----------------------

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/**
 * One autocannon run. Latencies are also kept here at full (sub-millisecond) resolution:
 * autocannon's own histogram rounds to whole milliseconds, too coarse for a p99/p50 ratio on a
 * hello-world server that answers in 0.3 ms.
 */
async function cannon({ url, headers, duration, refreshHeaders }) {
  const latencies = [];
  const clients = [];
  const instance = autocannon({
    url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration,
    headers,
    timeout: 10,
    setupClient: (client) => clients.push(client),
  });
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
  });
  let timer;
  if (refreshHeaders) {
    timer = setInterval(() => {
      refreshHeaders().then(
        (fresh) => {
          for (const client of clients) client.setHeaders(fresh);
        },
        (err) => log(`could not refresh headers: ${err.message}`),
      );
    }, RESIGN_EVERY_MS);
  }
  try {
    const result = await instance;
    return { result, latencies: Float64Array.from(latencies).sort() };
  } finally {
    clearInterval(timer);
  }
}

/** One request first: a scenario that does not answer 2xx is reported broken without loading it. */
async function probe(url, headers) {
  try {
    const res = await fetch(url, { headers });
    const body = await res.text();
    return { ok: res.ok, status: res.status, body: body.slice(0, 300) };
  } catch (err) {
    return { ok: false, status: 0, body: String(err?.cause?.message ?? err.message) };
  }
}

async function measure(scenario) {
  log(`scenario: ${scenario.name} — ${scenario.method ?? 'GET'} ${scenario.url}`);
  const headers = scenario.headers ? await scenario.headers() : {};
  const first = await probe(scenario.url, headers);
  if (!first.ok) {
    return {
      ...scenario.meta,
      name: scenario.name,
      url: scenario.url,
      broken: true,
      reason: `probe answered ${first.status}: ${first.body}`,
    };
  }
  await cannon({ url: scenario.url, headers, duration: WARMUP_S, refreshHeaders: scenario.headers });
  const fresh = scenario.headers ? await scenario.headers() : {};
  const cpuBefore = cpuSnapshot();
  const { result, latencies } = await cannon({ url: scenario.url, headers: fresh, duration: DURATION_S, refreshHeaders: scenario.headers });
  const cpu = cpuDelta(cpuBefore, cpuSnapshot());
  cpu.microsPerRequest = Object.fromEntries(
    Object.entries(cpu.seconds).map(([label, sec]) => [label, result.requests.total ? (sec * 1e6) / result.requests.total : NaN]),
  );
  const non2xx = result.non2xx ?? 0;
  const errors = (result.errors ?? 0) + (result.timeouts ?? 0);
  const p50 = percentile(latencies, 0.5);
  const p99 = percentile(latencies, 0.99);
  const out = {
    name: scenario.name,
    url: scenario.url,
    rps: result.requests.average,
    total: result.requests.total,
    p50,
    p90: percentile(latencies, 0.9),
    p99,
    max: latencies.length ? latencies[latencies.length - 1] : NaN,
    non2xx,
    errors: result.errors ?? 0,
    timeouts: result.timeouts ?? 0,
    statusCodeStats: result.statusCodeStats,
    throughputBytesPerSec: result.throughput.average,
    autocannonLatencyMs: { p50: result.latency.p50, p99: result.latency.p99, average: result.latency.average },
    cpu,
    broken: non2xx > 0 || errors > 0 || result.requests.total === 0,
  };
  if (out.broken)
    out.reason = `${non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors, ${result.timeouts} timeouts`;
  log(
    `  ${out.rps.toFixed(0)} req/s, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms` + (out.broken ? `  !!! BROKEN: ${out.reason}` : ''),
  );
  return out;
}

// ---------------------------------------------------------------- report ---------------------

const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const mib = (kib) => (kib === undefined ? 'n/a' : (kib / 1024).toFixed(1));

function renderReport(report) {
  const byKey = Object.fromEntries(report.scenarios.map((s) => [s.key, s]));
  const raw = byKey.raw;
  const rawOk = raw && !raw.broken;
  const lines = [];
  lines.push(
    `Measured ${report.date} on ${report.machine.cpus}× ${report.machine.cpuModel} (\`nproc\` ${report.machine.nproc}), ` +
      `Node ${report.machine.node}, ${report.machine.platform}; load average at start ${report.machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' / ')}. ` +
      `autocannon ${report.settings.connections} connections, ${report.settings.warmupSeconds} s warm-up + ${report.settings.durationSeconds} s per scenario, ` +
      `system started with \`LOG_LEVEL=${report.settings.logLevel}\`.`,
  );
  lines.push('');
  lines.push('| scenario | req/s | p50 ms | p99 ms | p99/p50 | × raw node:http | non-2xx / errors |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const s of report.scenarios) {
    if (s.broken && s.rps === undefined) {
      lines.push(`| ${s.name} | **BROKEN** | | | | | ${s.reason.replace(/\|/g, '\\|').slice(0, 120)} |`);
      continue;
    }
    const ratio = rawOk ? s.rps / raw.rps : NaN;
    const bad = s.broken ? ' **BROKEN**' : '';
    lines.push(
      `| ${s.name}${bad} | ${fmt(s.rps, 0)} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.p99 / s.p50, 1)} | ${fmt(ratio)} | ${s.non2xx} / ${s.errors + s.timeouts} |`,
    );
  }
  lines.push('');
  lines.push('Performance bar (issue 2), measured in this run:');
  lines.push('');
  for (const c of report.checks) lines.push(`- ${c.pass ? '✅' : '❌'} ${c.label}: ${c.detail}`);
  lines.push('');
  lines.push(
    `CPU time each process spent per request during the measured ${report.settings.durationSeconds} s (µs/request, from \`/proc/<pid>/stat\`), ` +
      `and how busy the ${report.machine.nproc}-core machine was (cores); "not ours" is CPU used by processes outside this table (other work on the box). ` +
      'postgres counts every postgres process, other databases included.',
  );
  lines.push('');
  const cols = ['load generator (bench)', 'raw node:http', 'express 5', 'gateway', 'auth', 'postgres', 'start script'];
  lines.push(`| scenario | ${cols.join(' | ')} | machine busy | not ours |`);
  lines.push(`|---|${cols.map(() => '---:').join('|')}|---:|---:|`);
  for (const s of report.scenarios) {
    if (!s.cpu) continue;
    const cell = (label) => {
      const v = s.cpu.microsPerRequest[label];
      return v === undefined || !Number.isFinite(v) ? '–' : v < 0.5 ? '0' : v.toFixed(0);
    };
    lines.push(`| ${s.name} | ${cols.map(cell).join(' | ')} | ${fmt(s.cpu.machineBusyCores)} | ${fmt(s.cpu.otherCores)} |`);
  }
  lines.push('');
  lines.push(
    `Resident memory (VmRSS) of the system \`npm start\` starts, idle: once ${QUIET_MS / 1000} s after it was up, and ${QUIET_MS / 1000} s after the load above ended.`,
  );
  lines.push('');
  lines.push('| process | RSS after start MiB | RSS after load MiB |');
  lines.push('|---|---:|---:|');
  for (const row of report.memory.rows) lines.push(`| ${row.name} | ${mib(row.startKiB)} | ${mib(row.afterKiB)} |`);
  lines.push(`| **total** | **${mib(report.memory.totalStartKiB)}** | **${mib(report.memory.totalAfterKiB)}** |`);
  return lines.join('\n');
}

function checks(byKey) {
  const { gateway, direct, express } = byKey;
  const usable = (s) => s && !s.broken;
  const out = [];
  const ratioCheck = (label, a, b, min) => {
    if (!usable(a) || !usable(b)) return out.push({ label, pass: false, detail: 'not measured (a scenario broke)' });
    const ratio = a.rps / b.rps;
    out.push({ label, pass: ratio >= min, ratio, detail: `${ratio.toFixed(2)}× (${a.rps.toFixed(0)} vs ${b.rps.toFixed(0)} req/s)` });
  };
  ratioCheck('gateway ≥ 0.7 × straight to auth', gateway, direct, 0.7);
  ratioCheck('gateway ≥ 0.5 × bare express 5', gateway, express, 0.5);
  const label = `gateway p99 ≤ 4 × p50 at ${CONNECTIONS} connections`;
  if (!usable(gateway)) out.push({ label, pass: false, detail: 'not measured (the scenario broke)' });
  else {
    const ratio = gateway.p99 / gateway.p50;
    out.push({
      label,
      pass: ratio <= 4,
      ratio,
      detail: `${ratio.toFixed(1)}× (p50 ${gateway.p50.toFixed(2)} ms, p99 ${gateway.p99.toFixed(2)} ms)`,
    });
  }
  return out;
}

function writeReadme(table) {
  const file = path.join(benchDir, 'README.md');
  const start = '<!-- results:start -->';
  const end = '<!-- results:end -->';
  const block = `${start}\n${table}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Kith benchmarks\n\n';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  text = a !== -1 && b > a ? text.slice(0, a) + block + text.slice(b + end.length) : `${text.trimEnd()}\n\n## Latest results\n\n${block}\n`;
  writeFileSync(file, text);
}

// ---------------------------------------------------------------- main -----------------------

async function main() {
  for (const dist of [
    'packages/platform/dist/index.js',
    'packages/proto/dist/gen/auth/v1/auth_pb.js',
    'gateway/dist/main.js',
    'services/auth/dist/main.js',
  ]) {
    if (!existsSync(path.join(root, dist))) throw new Error(`${dist} is missing: build first (npm run build), or use npm run bench`);
  }
  const { IdentitySigner, createClient } = await import('@kith/platform');
  const { AuthService } = await import('@kith/proto/auth/v1/auth');

  const loadavgAtStart = os.loadavg();
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const keys = {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }),
  };

  log(`starting the system (port offset ${OFFSET}, DB_PREFIX=kith_bench, LOG_LEVEL=${LOG_LEVEL})…`);
  const t0 = Date.now();
  const system = await startSystem(keys);
  log(`system up in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${system.baseUrl}`);
  const auth = system.list.find((p) => p.name === 'auth');
  const authHttp = `http://127.0.0.1:${auth.env.HTTP_PORT}`;
  const authGrpc = `127.0.0.1:${auth.env.GRPC_PORT}`;

  const [raw, express] = await Promise.all([startBaseline('raw-http', 'raw-http.mjs'), startBaseline('express', 'express-hello.mjs')]);

  // A user of our own, through the gateway, as a client would make one.
  const suffix = randomBytes(6).toString('hex');
  const reg = await fetch(`${system.baseUrl}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: `bench_${suffix}`,
      email: `bench_${suffix}@example.com`,
      password: `bench password ${suffix}`,
      date_of_birth: '1990-05-17',
      consent: true,
    }),
  });
  const regBody = await reg.json().catch(() => ({}));
  if (reg.status !== 201 || typeof regBody.token !== 'string') throw new Error(`register failed: ${reg.status} ${JSON.stringify(regBody)}`);
  const token = regBody.token;
  const meRes = await fetch(`${system.baseUrl}/users/@me`, { headers: { authorization: token } });
  const me = await meRes.json().catch(() => ({}));
  if (meRes.status !== 200 || typeof me.id !== 'string')
    throw new Error(`GET /users/@me through the gateway failed: ${meRes.status} ${JSON.stringify(me)}`);

  // The session id is not in any HTTP answer; ask auth as the gateway does.
  const authClient = createClient(AuthService, authGrpc, 5000);
  let owner;
  try {
    owner = await authClient.validateToken({ token, clientIp: '127.0.0.1' });
  } finally {
    authClient.close();
  }
  if (!owner.valid || owner.userId !== me.id)
    throw new Error(`ValidateToken disagrees: ${JSON.stringify({ valid: owner.valid, userId: owner.userId, me: me.id })}`);
  const signer = await IdentitySigner.fromPem(keys.privateKey);
  const identityHeaders = async () => ({
    'x-internal-identity': await signer.sign(
      { userId: owner.userId, sessionId: owner.sessionId, clientIp: '127.0.0.1', requestId: randomUUID(), fingerprint: null },
      'auth',
    ),
  });

  await sleep(QUIET_MS);
  const memoryAtStart = systemMemory(system.child.pid, system.list);

  const systemPid = system.child.pid;
  cpuGroups = () => {
    const groups = { 'start script': [systemPid], 'raw node:http': [raw.child.pid], 'express 5': [express.child.pid] };
    for (const row of systemMemory(systemPid, system.list).slice(1)) (groups[row.name] ??= []).push(row.pid);
    groups.postgres = pidsNamed('postgres');
    groups['redis-server'] = pidsNamed('redis-server');
    groups['nats-server'] = pidsNamed('nats-server');
    return groups;
  };

  const scenarios = [
    { key: 'raw', name: 'raw node:http hello-world', url: raw.url },
    { key: 'express', name: 'bare express 5 hello-world', url: express.url },
    {
      key: 'gateway',
      name: 'GET /api/v9/users/@me through the gateway',
      url: `${system.baseUrl}/users/@me`,
      headers: async () => ({ authorization: token }),
    },
    { key: 'direct', name: 'GET /users/@me straight to auth', url: `${authHttp}/users/@me`, headers: identityHeaders },
  ];
  // V8 keeps optimising the services' hot paths for several seconds; warm both system paths up
  // before measuring either, or whichever runs first pays for the other's warm-up.
  for (const scenario of scenarios.filter((sc) => sc.key === 'gateway' || sc.key === 'direct')) {
    log(`warming up: ${scenario.name} (${SYSTEM_WARMUP_S} s)`);
    await cannon({ url: scenario.url, headers: await scenario.headers(), duration: SYSTEM_WARMUP_S, refreshHeaders: scenario.headers });
  }
  const results = [];
  const linesBefore = started.system.output.count;
  for (const scenario of scenarios) {
    const r = await measure(scenario);
    r.key = scenario.key;
    if (r.broken) log(`!!! scenario "${scenario.name}" is BROKEN: ${r.reason}`);
    results.push(r);
  }
  const systemLinesDuringLoad = started.system.output.count - linesBefore;

  await sleep(QUIET_MS);
  const memoryAfter = systemMemory(system.child.pid, system.list);
  const rows = memoryAfter.map((row) => ({
    name: row.name,
    pid: row.pid,
    startKiB: memoryAtStart.find((m) => m.pid === row.pid)?.kib,
    afterKiB: row.kib,
  }));
  const sum = (key) => rows.reduce((acc, r) => acc + (r[key] ?? 0), 0);

  const byKey = Object.fromEntries(results.map((r) => [r.key, r]));
  const report = {
    date: new Date().toISOString(),
    machine: {
      nproc: os.availableParallelism(),
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model?.trim() ?? 'unknown CPU',
      totalMemMiB: Math.round(os.totalmem() / 2 ** 20),
      node: process.version,
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      loadavgAtStart,
      loadavgAtEnd: os.loadavg(),
    },
    settings: { durationSeconds: DURATION_S, warmupSeconds: WARMUP_S, connections: CONNECTIONS, portOffset: OFFSET, logLevel: LOG_LEVEL },
    scenarios: results,
    checks: checks(byKey),
    memory: { rows, totalStartKiB: sum('startKiB'), totalAfterKiB: sum('afterKiB') },
    systemLogLinesDuringLoad: systemLinesDuringLoad,
  };
  const table = renderReport(report);
  process.stdout.write(`\n${table}\n\n`);
  if (systemLinesDuringLoad > 0) {
    log(`the system printed ${systemLinesDuringLoad} log lines during the load (LOG_LEVEL=${LOG_LEVEL}); the last ones:`);
    process.stderr.write(`${started.system.output.tail().split('\n').slice(-10).join('\n')}\n`);
  }

  mkdirSync(path.join(benchDir, 'results'), { recursive: true });
  writeFileSync(path.join(benchDir, 'results', 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  if (!process.env.BENCH_NO_README) writeReadme(table);
  log(`wrote bench/results/latest.json${process.env.BENCH_NO_README ? '' : ' and bench/README.md'}`);

  const broken = results.filter((r) => r.broken);
  if (broken.length) {
    process.stderr.write(`\n!!! ${broken.length} scenario(s) BROKEN: ${broken.map((b) => `${b.name} (${b.reason})`).join('; ')}\n\n`);
    return 1;
  }
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  log(`failed: ${err.stack ?? err.message}`);
  if (started.system)
    process.stderr.write(`\nlast lines of the system:\n${started.system.output.tail().split('\n').slice(-40).join('\n')}\n`);
} finally {
  await stopEverything();
}
process.exit(code);
