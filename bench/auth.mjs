#!/usr/bin/env node
// The account benchmark of issue 4, in one run (`npm run build && node bench/auth.mjs`):
//   (a) password login (no MFA) through the gateway against argon2id verification alone, with
//       auth's parameters and the same concurrency, in a process of its own on the same machine:
//       the login must reach ≥ 0.7× the bare verification rate;
//   (b) auth's gRPC CheckMfaElevation against ValidateToken at the same concurrency: calls/s and
//       the CPU each call costs (auth, PostgreSQL, Redis): the elevation check must cost no more.
// It starts the whole system as `npm start` does (scripts/start.mjs) on its own ports and
// databases, with the login-failure limits set out of the way, prints a table, writes it into
// bench/README.md and the raw numbers into bench/results/auth.json. Everything it starts is
// stopped again, also on failure or Ctrl-C. Exits non-zero when a check fails or a call broke.
//
// Knobs: BENCH_DURATION (seconds per scenario, default 10), BENCH_WARMUP (default 3),
// BENCH_CONNECTIONS (logins in flight, default 10), BENCH_GRPC_CONCURRENCY (calls in flight,
// default 10), BENCH_PORT_OFFSET (default 5000), BENCH_LOG_LEVEL (default warn), BENCH_NO_README=1.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { fmt, percentile } from './lib/load.mjs';
import { cpuMeter, cpuSeconds, systemProcesses } from './lib/proc.mjs';
import { writeReadmeSection } from './lib/readme.mjs';
import {
  LOG_LEVEL,
  collect,
  log,
  machineInfo,
  makeKeys,
  positive,
  requireBuilt,
  root,
  runMain,
  saveResults,
  startSystem,
  systemCpuGroups,
} from './lib/system.mjs';

// auth's argon2id cost (services/auth/src/config.ts defaults; the bench does not override them).
const ARGON2 = { memoryKiB: 19456, iterations: 2 };

if (process.argv[2] === '--argon2-baseline') {
  await argon2Baseline();
  process.exit(0);
}

const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 3);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const GRPC_CONCURRENCY = Math.round(positive('BENCH_GRPC_CONCURRENCY', 10));
/** The login and its baseline alternate in this many rounds, so neighbours' load drifts onto both alike. */
const ROUNDS = Math.round(positive('BENCH_ROUNDS', 3));
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 5000));
const DB_PREFIX = 'kith_benchauth';

/**
 * The baseline, run as its own process (`--argon2-baseline`): `CONCURRENCY` loops verifying one
 * hash of auth's parameters one after the other, on libuv's default pool as auth's argon2 uses.
 */
async function argon2Baseline() {
  const { default: argon2 } = await import('argon2');
  const concurrency = Number(process.env.CONCURRENCY);
  const password = 'bench password for argon2';
  const hash = await argon2.hash(password, {
    type: argon2.argon2id,
    memoryCost: ARGON2.memoryKiB,
    timeCost: ARGON2.iterations,
    parallelism: 1,
  });
  const run = async (seconds) => {
    const deadline = performance.now() + seconds * 1000;
    let count = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          if (!(await argon2.verify(hash, password))) throw new Error('verify failed');
          count++;
        }
      }),
    );
    return count;
  };
  await run(Number(process.env.WARMUP_SECONDS));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const verifies = await run(Number(process.env.SECONDS));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({ verifies, seconds, rate: verifies / seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
}

/**
 * CPU seconds of a process's main thread (its JavaScript): the rest of the process's time is its
 * other threads, where argon2 runs (libuv's pool) beside V8's helpers.
 */
const mainThreadSeconds = (pid) => cpuSeconds(pid, pid) ?? NaN;

function runArgon2Baseline(seconds) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--argon2-baseline'], {
    cwd: root,
    env: { ...process.env, CONCURRENCY: String(CONNECTIONS), SECONDS: String(seconds), WARMUP_SECONDS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child, 'argon2 |');
  let text = '';
  child.stdout.on('data', (chunk) => (text += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const line = text.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) reject(new Error(`the argon2 baseline failed (${code}):\n${output.tail()}`));
      else resolve(JSON.parse(line));
    });
  });
}

async function call(url, { method = 'GET', headers = {}, body } = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

/** `concurrency` loops calling `fn` back to back for `seconds`; the calls made and any failure. */
async function closedLoop(fn, concurrency, seconds) {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  let failures = 0;
  let firstFailure;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        try {
          await fn();
          calls++;
        } catch (err) {
          failures++;
          firstFailure ??= String(err?.message ?? err);
        }
      }
    }),
  );
  return { calls, failures, firstFailure };
}

async function measureGrpc(name, fn, meter) {
  log(`scenario: ${name} (${GRPC_CONCURRENCY} in flight)`);
  await closedLoop(fn, GRPC_CONCURRENCY, WARMUP_S);
  const before = meter.snapshot();
  const t0 = performance.now();
  const { calls, failures, firstFailure } = await closedLoop(fn, GRPC_CONCURRENCY, DURATION_S);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = meter.delta(before, meter.snapshot(), calls);
  const out = { name, calls, rate: calls / seconds, failures, firstFailure, cpu, broken: failures > 0 || calls === 0 };
  log(`  ${fmt(out.rate, 0)} calls/s` + (out.broken ? `  !!! BROKEN: ${failures} failures (${firstFailure})` : ''));
  return out;
}

const us = (v) => (v === undefined || !Number.isFinite(v) ? '–' : v < 0.5 ? '0' : v.toFixed(0));
const COST_LABELS = ['auth', 'postgres', 'redis-server'];
const costOf = (s) => COST_LABELS.reduce((sum, label) => sum + (s.cpu.microsPerRequest[label] ?? 0), 0);

function renderReport(report) {
  const { login, argon2, validate, elevation } = report;
  const lines = [];
  lines.push(
    `Measured ${report.date} on ${report.machine.cpus}× ${report.machine.cpuModel} (\`nproc\` ${report.machine.nproc}), Node ${report.machine.node}; ` +
      `load average at start ${report.machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' / ')}. ${report.settings.warmupSeconds} s warm-up + ` +
      `${report.settings.durationSeconds} s per scenario; system started with \`LOG_LEVEL=${report.settings.logLevel}\`, login-failure limits at 1,000,000.`,
  );
  lines.push('');
  lines.push(
    `**(a) Password login vs argon2id alone** (${report.settings.connections} in flight; ${report.settings.rounds} alternating rounds of ${fmt(report.settings.durationSeconds / report.settings.rounds, 1)} s each; argon2id m=${ARGON2.memoryKiB} KiB, t=${ARGON2.iterations}, p=1):`,
  );
  lines.push('');
  lines.push(
    '| scenario | per s | p50 ms | p99 ms | auth (or baseline) µs CPU/op | of which main thread | of which other threads (argon2 pool, GC) | postgres µs/op | gateway µs/op | machine busy (cores) |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const m = login.cpu?.microsPerRequest ?? {};
  const main = login.cpu?.authMainThreadMicrosPerRequest;
  lines.push(
    `| POST /api/v9/auth/login through the gateway | ${fmt(login.rps, 1)} | ${fmt(login.p50)} | ${fmt(login.p99)} | ${us(m.auth)} | ${us(main)} | ${us(m.auth - main)} | ${us(m.postgres)} | ${us(m.gateway)} | ${fmt(login.cpu?.machineBusyCores)} |`,
  );
  lines.push(
    `| argon2.verify alone, own process | ${fmt(argon2.rate, 1)} | | | ${us((argon2.cpuSeconds * 1e6) / argon2.verifies)} | | | | | |`,
  );
  lines.push('');
  lines.push(
    `**(b) gRPC CheckMfaElevation vs ValidateToken** (${report.settings.grpcConcurrency} calls in flight, one client in the bench process):`,
  );
  lines.push('');
  lines.push('| call | calls/s | auth µs CPU/call | postgres µs/call | redis µs/call | bench µs/call | auth+postgres+redis µs/call |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const s of [validate, elevation]) {
    const c = s.cpu.microsPerRequest;
    lines.push(
      `| ${s.name}${s.broken ? ' **BROKEN**' : ''} | ${fmt(s.rate, 0)} | ${us(c.auth)} | ${us(c.postgres)} | ${us(c['redis-server'])} | ${us(c['load generator (bench)'])} | ${us(costOf(s))} |`,
    );
  }
  lines.push('');
  lines.push('Bar (issue 4), measured in this run:');
  lines.push('');
  for (const c of report.checks) lines.push(`- ${c.pass ? '✅' : '❌'} ${c.label}: ${c.detail}`);
  return lines.join('\n');
}

function checks({ login, argon2, validate, elevation }) {
  const out = [];
  if (login.broken) out.push({ label: 'login ≥ 0.7 × argon2id verify', pass: false, detail: `login broke: ${login.reason}` });
  else {
    const ratio = login.rps / argon2.rate;
    out.push({
      label: 'login through the gateway ≥ 0.7 × argon2id verify alone',
      pass: ratio >= 0.7,
      detail: `${ratio.toFixed(2)}× (${login.rps.toFixed(0)} logins/s vs ${argon2.rate.toFixed(0)} verifies/s)`,
    });
  }
  if (validate.broken || elevation.broken)
    out.push({ label: 'CheckMfaElevation costs ≤ ValidateToken', pass: false, detail: 'not measured (a call broke)' });
  else {
    const [e, v] = [costOf(elevation), costOf(validate)];
    out.push({
      label: 'CheckMfaElevation CPU per call (auth + postgres + redis) ≤ ValidateToken',
      pass: e <= v,
      detail: `${e.toFixed(0)} µs vs ${v.toFixed(0)} µs (${(e / v).toFixed(2)}×)`,
    });
    out.push({
      label: 'CheckMfaElevation calls/s ≥ ValidateToken at the same concurrency',
      pass: elevation.rate >= validate.rate,
      detail: `${elevation.rate.toFixed(0)} vs ${validate.rate.toFixed(0)} calls/s`,
    });
  }
  return out;
}

async function main() {
  requireBuilt(['packages/platform/dist/index.js', 'packages/proto/dist/gen/auth/v1/auth_pb.js', 'services/auth/dist/main.js']);
  const { createClient } = await import('@kith/platform');
  const { AuthService } = await import('@kith/proto/auth/v1/auth');
  const loadavgAtStart = os.loadavg();

  log(`starting the system (port offset ${OFFSET}, DB_PREFIX=${DB_PREFIX}, LOG_LEVEL=${LOG_LEVEL})…`);
  const system = await startSystem({
    offset: OFFSET,
    dbPrefix: DB_PREFIX,
    logLevel: LOG_LEVEL,
    keys: makeKeys(),
    // Every login comes from 127.0.0.1 for one account: the failure limits must not be what is measured.
    env: { LOGIN_FAILURES_PER_ACCOUNT: '1000000', LOGIN_FAILURES_PER_IP: '1000000' },
  });
  const auth = system.list.find((p) => p.name === 'auth');

  const suffix = randomBytes(6).toString('hex');
  const account = { email: `bench_${suffix}@example.com`, password: `bench password ${suffix}` };
  const reg = await call(`${system.baseUrl}/auth/register`, {
    method: 'POST',
    body: { username: `bench_${suffix}`, ...account, date_of_birth: '1990-05-17', consent: true },
  });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const token = reg.body.token;

  // An elevation JWT as a client gets one: a sensitive change answers 60003, /mfa/finish proves
  // the password (the account has no MFA) and answers the token.
  const required = await call(`${system.baseUrl}/users/@me`, {
    method: 'PATCH',
    headers: { authorization: token },
    body: { email: `bench_other_${suffix}@example.com`, password: account.password },
  });
  if (required.body.code !== 60003) throw new Error(`expected 60003: ${required.status} ${JSON.stringify(required.body)}`);
  const finished = await call(`${system.baseUrl}/mfa/finish`, {
    method: 'POST',
    headers: { authorization: token },
    body: { ticket: required.body.mfa.ticket, mfa_type: 'password', data: account.password },
  });
  if (finished.status !== 200) throw new Error(`/mfa/finish failed: ${finished.status} ${JSON.stringify(finished.body)}`);
  const elevationToken = finished.body.token;

  const grpc = createClient(AuthService, `127.0.0.1:${auth.env.GRPC_PORT}`, 5000);
  const owner = await grpc.validateToken({ token, clientIp: '127.0.0.1' });
  if (!owner.valid) throw new Error('ValidateToken refuses the registration token');

  const systemPid = system.child.pid;
  const meter = cpuMeter(() => systemCpuGroups(system));

  let login;
  let argon2;
  let validate;
  let elevation;
  try {
    // The same body on every request: one account, the right password, no MFA.
    const body = JSON.stringify({ login: account.email, password: account.password });
    const authPid = systemProcesses(root, systemPid, system.list).find((row) => row.name === 'auth')?.pid;
    ({ login, argon2 } = await measureLogin(`${system.baseUrl}/auth/login`, body, meter, authPid));

    validate = await measureGrpc(
      'ValidateToken',
      async () => {
        const r = await grpc.validateToken({ token, clientIp: '127.0.0.1' });
        if (!r.valid) throw new Error('token refused');
      },
      meter,
    );
    elevation = await measureGrpc('CheckMfaElevation', () => grpc.checkMfaElevation({ userId: owner.userId, elevationToken }), meter);
  } finally {
    grpc.close();
  }

  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(loadavgAtStart),
    settings: {
      durationSeconds: DURATION_S,
      warmupSeconds: WARMUP_S,
      connections: CONNECTIONS,
      grpcConcurrency: GRPC_CONCURRENCY,
      rounds: ROUNDS,
      portOffset: OFFSET,
      logLevel: LOG_LEVEL,
      argon2: ARGON2,
    },
    login,
    argon2,
    validate,
    elevation,
  };
  report.checks = checks(report);
  const table = renderReport(report);
  process.stdout.write(`\n${table}\n\n`);
  saveResults('auth.json', report);
  writeReadmeSection('auth', 'Accounts: login and MFA elevation (issue 4)', table);
  return report.checks.every((c) => c.pass) && !login.broken ? 0 : 1;
}

/** autocannon POSTing `body`, with every 2xx latency kept at full resolution. */
async function postLoad(url, body, duration) {
  const latencies = [];
  const instance = autocannon({
    url,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    connections: CONNECTIONS,
    pipelining: 1,
    duration,
    timeout: 10,
  });
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
  });
  const result = await instance;
  return { result, latencies: Float64Array.from(latencies).sort() };
}

/**
 * Probe and warm-up, then ROUNDS rounds of (argon2id baseline, measured logins), each a share of
 * the duration: both see the same neighbours. The logins' CPU per process is summed over rounds.
 */
async function measureLogin(url, body, meter, authPid) {
  const name = 'POST /api/v9/auth/login through the gateway';
  log(`scenario: ${name} against argon2id alone (${CONNECTIONS} in flight, ${ROUNDS} rounds)`);
  const probe = await call(url, { method: 'POST', body: JSON.parse(body) });
  if (probe.status !== 200 || typeof probe.body.token !== 'string')
    throw new Error(`the login probe answered ${probe.status}: ${JSON.stringify(probe.body).slice(0, 300)}`);
  await postLoad(url, body, WARMUP_S);
  const share = DURATION_S / ROUNDS;
  const argon2 = { verifies: 0, seconds: 0, cpuSeconds: 0 };
  const login = { total: 0, seconds: 0, non2xx: 0, errors: 0, latencies: [], cpuSeconds: {}, busy: 0, statusCodeStats: [], authMain: 0 };
  for (let round = 1; round <= ROUNDS; round++) {
    const base = await runArgon2Baseline(share);
    argon2.verifies += base.verifies;
    argon2.seconds += base.seconds;
    argon2.cpuSeconds += base.cpuSeconds;
    const before = meter.snapshot();
    const mainBefore = mainThreadSeconds(authPid);
    const t0 = performance.now();
    const { result, latencies } = await postLoad(url, body, share);
    login.authMain += mainThreadSeconds(authPid) - mainBefore;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = meter.delta(before, meter.snapshot());
    login.total += result.requests.total;
    login.seconds += seconds;
    login.non2xx += result.non2xx ?? 0;
    login.errors += (result.errors ?? 0) + (result.timeouts ?? 0);
    login.latencies.push(...latencies);
    login.busy += cpu.machineBusyCores * cpu.wallSeconds;
    login.statusCodeStats.push(result.statusCodeStats);
    for (const [label, sec] of Object.entries(cpu.seconds)) login.cpuSeconds[label] = (login.cpuSeconds[label] ?? 0) + sec;
    log(`  round ${round}: ${fmt(base.rate, 1)} verifies/s, ${fmt(result.requests.total / seconds, 1)} logins/s`);
  }
  argon2.rate = argon2.verifies / argon2.seconds;
  const sorted = Float64Array.from(login.latencies).sort();
  const out = {
    name,
    rps: login.total / login.seconds,
    total: login.total,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    non2xx: login.non2xx,
    errors: login.errors,
    statusCodeStats: login.statusCodeStats,
    cpu: {
      seconds: login.cpuSeconds,
      machineBusyCores: login.busy / login.seconds,
      microsPerRequest: Object.fromEntries(Object.entries(login.cpuSeconds).map(([l, sec]) => [l, (sec * 1e6) / login.total])),
      authMainThreadMicrosPerRequest: (login.authMain * 1e6) / login.total,
    },
    broken: login.non2xx > 0 || login.errors > 0 || login.total === 0,
  };
  if (out.broken) out.reason = `${login.non2xx} non-2xx, ${login.errors} errors/timeouts`;
  log(`  ${fmt(out.rps, 1)} logins/s vs ${fmt(argon2.rate, 1)} verifies/s` + (out.broken ? `  !!! BROKEN: ${out.reason}` : ''));
  return { login: out, argon2 };
}

await runMain(main);
