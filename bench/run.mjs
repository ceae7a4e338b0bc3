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
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { cannon, fmt, measure } from './lib/load.mjs';
import { cpuMeter, rssKiB, systemProcesses } from './lib/proc.mjs';
import { readmeOff, writeReadmeSection } from './lib/readme.mjs';
import {
  LOG_LEVEL,
  cpuProfEnv,
  log,
  machineInfo,
  makeKeys,
  positive,
  requireBuilt,
  root,
  runMain,
  saveResults,
  sleep,
  startBaseline,
  startSystem,
  systemCpuGroups,
  systemTail,
} from './lib/system.mjs';

const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 2);
const SYSTEM_WARMUP_S = positive('BENCH_SYSTEM_WARMUP', 8);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
// Not 2000: the gateway would land on 10080, a port fetch() refuses ("bad port", the WHATWG fetch
// spec's blocked list), so the start script's own readiness check could never pass.
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 3000));
const QUIET_MS = 3_000;

/** Resident memory of the start script and of every process it spawned, named by working directory. */
function systemMemory(startPid, list) {
  const rows = [{ name: 'start script (scripts/start.mjs)', pid: startPid }, ...systemProcesses(root, startPid, list)];
  return rows.map((row) => ({ ...row, kib: rssKiB(row.pid) }));
}

const mib = (kib) => (kib === undefined ? 'n/a' : (kib / 1024).toFixed(1));

// ---------------------------------------------------------------- report ---------------------

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

// ---------------------------------------------------------------- main -----------------------

async function main() {
  requireBuilt(
    ['packages/platform/dist/index.js', 'packages/proto/dist/gen/auth/v1/auth_pb.js', 'gateway/dist/main.js', 'services/auth/dist/main.js'],
    'build first (npm run build), or use npm run bench',
  );
  const { IdentitySigner, createClient } = await import('@kith/platform');
  const { AuthService } = await import('@kith/proto/auth/v1/auth');

  const loadavgAtStart = os.loadavg();
  const keys = makeKeys();

  log(`starting the system (port offset ${OFFSET}, DB_PREFIX=kith_bench, LOG_LEVEL=${LOG_LEVEL})…`);
  const t0 = Date.now();
  const env = cpuProfEnv();
  const system = await startSystem({ offset: OFFSET, dbPrefix: 'kith_bench', logLevel: LOG_LEVEL, keys, env });
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

  const meter = cpuMeter(() => systemCpuGroups(system, { 'raw node:http': [raw.child.pid], 'express 5': [express.child.pid] }));

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
    await cannon({
      url: scenario.url,
      headers: await scenario.headers(),
      duration: SYSTEM_WARMUP_S,
      connections: CONNECTIONS,
      refreshHeaders: scenario.headers,
    });
  }
  const results = [];
  const linesBefore = system.output.count;
  for (const scenario of scenarios) {
    const r = await measure(scenario, { connections: CONNECTIONS, warmupS: WARMUP_S, durationS: DURATION_S, meter });
    r.key = scenario.key;
    if (r.broken) log(`!!! scenario "${scenario.name}" is BROKEN: ${r.reason}`);
    results.push(r);
  }
  const systemLinesDuringLoad = system.output.count - linesBefore;

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
    machine: machineInfo(loadavgAtStart),
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
    process.stderr.write(`${systemTail(10)}\n`);
  }

  saveResults('latest.json', report);
  writeReadmeSection('results', 'Latest results', table);
  log(`wrote bench/results/latest.json${readmeOff ? '' : ' and bench/README.md'}`);

  const broken = results.filter((r) => r.broken);
  if (broken.length) {
    process.stderr.write(`\n!!! ${broken.length} scenario(s) BROKEN: ${broken.map((b) => `${b.name} (${b.reason})`).join('; ')}\n\n`);
    return 1;
  }
  return 0;
}

await runMain(main);
