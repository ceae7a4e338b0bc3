#!/usr/bin/env node
// What the edge's rate limits cost, in one run (`node bench/rate-limits.mjs` after a build):
//   1. starts the whole system as `npm start` does, with the production rate-limit table
//      (RATE_LIMITS_SCALE=1), and beside its gateway a second gateway process with RATE_LIMITING=off
//      in front of the same services, on the same stores;
//   2. registers BENCH_USERS users (through the unlimited gateway: registrations are limited per
//      address) so that the load stays under every user's global limit of 50 requests/s: each
//      request of the load goes with the next token, round robin;
//   3. warms both gateways up, then measures authenticated GET /users/@me through each, alternating
//      (on, off, on, off) so drift on a shared machine touches both alike; a 429 or any non-2xx
//      marks a run broken;
//   4. reports req/s, the ratio on/off (the bar: ≥ 0.90), the CPU each process spent per request
//      and the Redis commands and reads per request, into bench/README.md's rate-limit section and
//      bench/results/rate-limits.json.
// The system runs on a redis-server of this run's own (port 6400 + BENCH_PORT_OFFSET), so that
// Redis's CPU and command counts are this run's alone. BENCH_CPU_PROF=<dir> makes both gateways
// and every service write a CPU profile there (bench/cpu-top.mjs reads them).
// Knobs: BENCH_ROUNDS (on/off pairs, default 2), BENCH_DURATION (s per run, default 10), BENCH_WARMUP (s, default 2), BENCH_SYSTEM_WARMUP
// (s per gateway before any run, default 8), BENCH_CONNECTIONS (default 10), BENCH_USERS (default
// 400), BENCH_PORT_OFFSET (default 3000), BENCH_DB_PREFIX (default kith_bench_rl), BENCH_NO_README=1.
// Bounded: BENCH_TIMEOUT (s, default 600) stops everything and exits 124.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { cannon, fmt, measure } from './lib/load.mjs';
import { cpuMeter } from './lib/proc.mjs';
import { readmeOff, writeReadmeSection } from './lib/readme.mjs';
import {
  LOG_LEVEL,
  collect,
  cpuProfEnv,
  log,
  machineInfo,
  makeKeys,
  onCleanup,
  positive,
  requireBuilt,
  root,
  runMain,
  saveResults,
  sleep,
  startSystem,
  systemCpuGroups,
} from './lib/system.mjs';
import { dbPrefix } from './lib/db.mjs';

const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 2);
const SYSTEM_WARMUP_S = positive('BENCH_SYSTEM_WARMUP', 8);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const USERS = Math.round(positive('BENCH_USERS', 400));
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 3000));
const TIMEOUT_S = positive('BENCH_TIMEOUT', 600);
const DB_PREFIX = dbPrefix('kith_bench_rl');
const ROUNDS = Math.round(positive('BENCH_ROUNDS', 2));
const BAR = 0.9;
/** The run's own redis-server listens on this plus BENCH_PORT_OFFSET. */
const REDIS_PORT_BASE = 6400;

/**
 * A redis-server of this run's own (no persistence), so that its CPU and the commands it executes
 * are this system's alone: the machine's shared Redis also serves other stacks.
 */
async function startRedis(port) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child, 'redis |');
  onCleanup(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  });
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited:\n${output.tail()}`);
    try {
      if (redisCli(port, 'ping').trim() === 'PONG') return { child, url: `redis://127.0.0.1:${port}` };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`redis-server was not ready in 10 s:\n${output.tail()}`);
}

const redisCli = (port, ...args) => execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });

/**
 * What the run's Redis has done so far (INFO stats): commands executed (those a script runs
 * included) and reads from its clients, i.e. the batches of commands that reached it.
 */
function redisCounts(port) {
  const stats = redisCli(port, 'info', 'stats');
  const count = (name) => Number(new RegExp(`${name}:(\\d+)`).exec(stats)?.[1] ?? NaN);
  return { commands: count('total_commands_processed'), reads: count('total_reads_processed') };
}

/** A second gateway process, as the start script runs one, with the given environment on top. */
async function startGatewayProcess(system, keys, env) {
  const entry = system.list.find((p) => p.name === 'gateway');
  const child = spawn(process.execPath, ['--enable-source-maps', '--import', '@kith/platform/telemetry', 'dist/main.js'], {
    cwd: path.join(root, entry.dir),
    env: {
      ...process.env,
      ...entry.env,
      LOG_LEVEL,
      INTERNAL_TOKEN_PRIVATE_KEY: keys.privateKey,
      INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKey,
      SERVICE_TOKEN_KEY: keys.serviceKey,
      KITH_PROCESS_NAME: 'gateway-off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child, 'gateway-off |');
  onCleanup(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  });
  const base = `http://127.0.0.1:${env.PORT}`;
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`the second gateway exited:\n${output.tail()}`);
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { child, base: `${base}/api/v9` };
    await sleep(200);
  }
  throw new Error(`the second gateway was not ready in 30 s:\n${output.tail()}`);
}

async function registerUsers(baseUrl, count) {
  const tokens = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const suffix = randomBytes(6).toString('hex');
      const res = await fetch(`${baseUrl}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          username: `rl_${suffix}`,
          email: `rl_${suffix}@example.com`,
          password: `bench password ${suffix}`,
          date_of_birth: '1990-05-17',
          consent: true,
        }),
      });
      const body = await res.json().catch(() => ({}));
      if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(body)}`);
      tokens.push(body.token);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return tokens;
}

function render(report) {
  const { on, off } = report.summary;
  const lines = [];
  lines.push(
    `Measured ${report.date} on ${report.machine.cpus}× ${report.machine.cpuModel} (\`nproc\` ${report.machine.nproc}), Node ${report.machine.node}; ` +
      `load average (1/5/15 min) at start ${report.machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' / ')}, at end ${report.machine.loadavgAtEnd.map((l) => l.toFixed(2)).join(' / ')}. autocannon ${report.settings.connections} connections, ` +
      `${report.settings.users} tokens in turn (each under its global limit), ${report.settings.warmupSeconds} s warm-up + ${report.settings.durationSeconds} s per run, ` +
      `runs alternating, \`LOG_LEVEL=${report.settings.logLevel}\`.`,
  );
  lines.push('');
  lines.push('| run | gateway | req/s | p50 ms | p99 ms | non-2xx / errors |');
  lines.push('|---|---|---:|---:|---:|---:|');
  report.runs.forEach((r, i) => {
    lines.push(
      `| ${i + 1} | ${r.limits ? 'rate limits on' : 'rate limits off'}${r.broken ? ' **BROKEN**' : ''} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.non2xx} / ${r.errors + r.timeouts} |`,
    );
  });
  lines.push('');
  lines.push(`- ${report.check.pass ? '✅' : '❌'} ${report.check.label}: ${report.check.detail}`);
  lines.push('');
  lines.push(
    'CPU time per request (µs, from `/proc/<pid>/stat`) over all the runs of each kind (their CPU time over their requests); "gateway" is the process that served the run. ' +
      "redis-server is the run's own (no other stack uses it); its commands per request count those a script runs, and its reads per request are the batches of commands that reached it (a pipeline is one).",
  );
  lines.push('');
  const cols = ['load generator (bench)', 'gateway', 'auth', 'redis-server', 'postgres', 'nats-server'];
  lines.push(`| rate limits | req/s | ${cols.join(' | ')} | Redis commands / request | Redis reads / request | machine busy (cores) |`);
  lines.push(`|---|---:|${cols.map(() => '---:').join('|')}|---:|---:|---:|`);
  for (const [label, s] of [
    ['on', on],
    ['off', off],
  ])
    lines.push(
      `| ${label} | ${fmt(s.rps, 0)} | ${cols.map((c) => fmt(s.cpu[c], 0)).join(' | ')} | ${fmt(s.redisCommands, 2)} | ${fmt(s.redisReads, 2)} | ${fmt(s.busy)} |`,
    );
  // The processes that are this run's alone (postgres and nats-server serve other stacks too).
  const own = (x) => x.cpu.gateway + x.cpu.auth + x.cpu['redis-server'];
  lines.push('');
  lines.push(
    `CPU per request of the processes that are this run's alone (gateway + auth + redis-server): ${fmt(own(on), 0)} µs with limits, ` +
      `${fmt(own(off), 0)} without: the limits cost ${fmt(own(on) - own(off), 0)} µs a request (off ÷ on = ${fmt(own(off) / own(on), 3)}), ` +
      'a figure less moved by a busy neighbour than req/s, as long as the runs serve enough requests that what a process spends idle does not count.',
  );
  return lines.join('\n');
}

function summarise(runs, limits) {
  const mine = runs.filter((r) => r.limits === limits);
  const avg = (f) => mine.reduce((a, r) => a + f(r), 0) / mine.length;
  // Per request over all the runs of a kind (total over total): a slow run weighs as little as it served.
  const requests = mine.reduce((a, r) => a + r.cpu.requests, 0);
  const perRequest = (f) => mine.reduce((a, r) => a + f(r) * r.cpu.requests, 0) / requests;
  const cpuOf = (r, label) => {
    const own = limits ? 'gateway' : 'gateway-off';
    return r.cpu.microsPerRequest[label === 'gateway' ? own : label] ?? NaN;
  };
  const labels = ['load generator (bench)', 'gateway', 'auth', 'redis-server', 'postgres', 'nats-server'];
  return {
    rps: avg((r) => r.rps),
    busy: avg((r) => r.cpu.machineBusyCores),
    redisCommands: perRequest((r) => r.cpu.redisCommandsPerRequest),
    redisReads: perRequest((r) => r.cpu.redisReadsPerRequest),
    cpu: Object.fromEntries(labels.map((l) => [l, perRequest((r) => cpuOf(r, l))])),
  };
}

async function main() {
  requireBuilt(['packages/platform/dist/index.js', 'gateway/dist/main.js', 'services/auth/dist/main.js']);
  const loadavgAtStart = os.loadavg();
  const keys = makeKeys();
  const redisPort = REDIS_PORT_BASE + OFFSET;
  const redis = await startRedis(redisPort);
  const env = { RATE_LIMITS_SCALE: '1', REDIS_URL: redis.url, ...cpuProfEnv() };
  log(
    `starting the system with the production rate limits (port offset ${OFFSET}, DB_PREFIX=${DB_PREFIX}, its own Redis on ${redisPort})…`,
  );
  const system = await startSystem({ offset: OFFSET, dbPrefix: DB_PREFIX, logLevel: LOG_LEVEL, keys, env });
  const gatewayPort = Number(system.list.find((p) => p.name === 'gateway').env.PORT);
  const off = await startGatewayProcess(system, keys, { ...env, PORT: String(gatewayPort + 10), RATE_LIMITING: 'off' });
  log(`gateway with limits: ${system.baseUrl}; without: ${off.base}`);

  log(`registering ${USERS} users…`);
  const tokens = await registerUsers(off.base, USERS);
  let turn = 0;
  const setupRequest = (req) => ({ ...req, headers: { ...req.headers, authorization: tokens[turn++ % tokens.length] } });
  const scenario = (limits) => ({
    name: `GET /users/@me, rate limits ${limits ? 'on' : 'off'}`,
    url: `${limits ? system.baseUrl : off.base}/users/@me`,
    headers: async () => ({ authorization: tokens[0] }),
    setupRequest,
    limits,
  });
  // The machine's shared redis-server is not this run's: only the run's own counts.
  const groups = () => ({ ...systemCpuGroups(system, { 'gateway-off': [off.child.pid] }), 'redis-server': [redis.child.pid] });
  const cpu = cpuMeter(groups);
  // Redis commands per request beside the CPU: INFO is read (synchronously, by redis-cli) just
  // before and just after the measured load, so its own command is the only one added.
  const meter = {
    snapshot: () => ({ ...cpu.snapshot(), redis: redisCounts(redisPort) }),
    delta: (before, after, requests) => ({
      ...cpu.delta(before, after, requests),
      // Less the INFO command (and its read) that took the first snapshot.
      redisCommandsPerRequest: (after.redis.commands - before.redis.commands - 1) / requests,
      redisReadsPerRequest: (after.redis.reads - before.redis.reads - 1) / requests,
    }),
  };

  for (const limits of [true, false]) {
    const s = scenario(limits);
    log(`warming up: ${s.name} (${SYSTEM_WARMUP_S} s)`);
    await cannon({ url: s.url, headers: await s.headers(), duration: SYSTEM_WARMUP_S, connections: CONNECTIONS, setupRequest });
  }
  const runs = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const limits of [true, false]) {
      const r = await measure(scenario(limits), { connections: CONNECTIONS, warmupS: WARMUP_S, durationS: DURATION_S, meter });
      runs.push({ ...r, limits });
    }

  const summary = { on: summarise(runs, true), off: summarise(runs, false) };
  const ratio = summary.on.rps / summary.off.rps;
  const broken = runs.filter((r) => r.broken);
  const check = {
    label: `authenticated GET /users/@me with rate limits on ≥ ${BAR.toFixed(2)} × off`,
    pass: broken.length === 0 && ratio >= BAR,
    ratio,
    detail: broken.length
      ? `not measured: ${broken.length} run(s) broke`
      : `${ratio.toFixed(3)}× (${summary.on.rps.toFixed(0)} vs ${summary.off.rps.toFixed(0)} req/s); gateway CPU ${fmt(summary.on.cpu.gateway, 0)} vs ${fmt(summary.off.cpu.gateway, 0)} µs/request, redis-server ${fmt(summary.on.cpu['redis-server'], 0)} vs ${fmt(summary.off.cpu['redis-server'], 0)}; Redis commands ${fmt(summary.on.redisCommands, 2)} vs ${fmt(summary.off.redisCommands, 2)} per request`,
  };
  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(loadavgAtStart),
    settings: { durationSeconds: DURATION_S, warmupSeconds: WARMUP_S, connections: CONNECTIONS, users: USERS, logLevel: LOG_LEVEL },
    runs,
    summary,
    check,
  };
  const table = render(report);
  process.stdout.write(`\n${table}\n\n`);
  saveResults('rate-limits.json', report);
  writeReadmeSection('rate-limits', 'What the rate limits cost', table);
  log(`wrote bench/results/rate-limits.json${readmeOff ? '' : ' and bench/README.md'}`);
  return check.pass ? 0 : 1;
}

await runMain(main, { timeoutS: TIMEOUT_S });
