#!/usr/bin/env node
// The invites benchmark (issue 13): `node bench/invites.mjs`, after `npm run build`. In one run, on
// one system started as `npm start` starts it (its own ports and databases):
//   1. registers BENCH_USERS users and an owner; the owner makes BENCH_GUILDS guilds, each with a
//      channel and a never-expiring, unlimited invite;
//   2. measures, with autocannon (10 connections, warm-up then the measured run):
//      - GET /api/v9/users/@me through the gateway (the baseline),
//      - GET /api/v9/invites/{code}?with_counts=true through the gateway,
//      - POST /api/v9/invites/{code} through the gateway, each request a user who is not in that
//        guild yet (a new member every time: users × guilds pairs, each used once).
// The bars: Get Invite with counts ≥ 60% and Accept ≥ 25% of GET /users/@me's req/s. It prints
// the table, writes it into bench/README.md (between the invites markers) and the raw numbers into
// bench/results/invites.json.
//
// Knobs: BENCH_USERS [200], BENCH_GUILDS [40] (pairs = users × guilds must outlast the Accept
// run), BENCH_DURATION [10] s, BENCH_WARMUP [2] s, BENCH_CONNECTIONS [10], BENCH_PORT_OFFSET [4700],
// BENCH_DB_PREFIX [kith_benchinv], BENCH_LOG_LEVEL [warn], BENCH_TIMEOUT [900] s, BENCH_NO_README=1.
import http from 'node:http';
import os from 'node:os';
import { dbPrefix, dropDatabases } from './lib/db.mjs';
import { request as httpRequest, pool, registerUsers } from './lib/http.mjs';
import { fmt, measure } from './lib/load.mjs';
import { cpuMeter } from './lib/proc.mjs';
import { readmeOff, writeReadmeSection } from './lib/readme.mjs';
import {
  LOG_LEVEL,
  log,
  machineInfo,
  makeKeys,
  positive,
  requireBuilt,
  runMain,
  saveResults,
  startSystem,
  systemCpuGroups,
} from './lib/system.mjs';

const USERS = Math.round(positive('BENCH_USERS', 200));
const GUILDS = Math.round(positive('BENCH_GUILDS', 40));
const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 2);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 4700));
const DB_PREFIX = dbPrefix('kith_benchinv');
const TIMEOUT_S = positive('BENCH_TIMEOUT', 900);
const PARALLEL = 20;
const BARS = { get: 0.6, accept: 0.25 };

async function main() {
  requireBuilt(['services/invites/dist/main.js']);
  const loadavgAtStart = os.loadavg();
  await dropDatabases(['auth', 'social', 'guilds', 'invites', 'integrations', 'billing', 'webhooks'].map((s) => `${DB_PREFIX}_${s}`));
  const system = await startSystem({ offset: OFFSET, dbPrefix: DB_PREFIX, logLevel: LOG_LEVEL, keys: makeKeys() });
  log(`system up: ${system.baseUrl}`);
  const origin = new URL(system.baseUrl).origin;
  const agent = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });
  const send = (method, path, token, body) => httpRequest(agent, system.baseUrl, method, path, token, body);

  log(`registering ${USERS + 1} users (${PARALLEL} at a time)…`);
  const users = await registerUsers(send, USERS + 1, { prefix: 'inv', parallel: PARALLEL });
  const owner = users.pop();
  log(`making ${GUILDS} guilds with an invite each…`);
  const codes = new Array(GUILDS);
  await pool(GUILDS, PARALLEL, async (i) => {
    const guild = JSON.parse((await send('POST', '/guilds', owner.token, { name: `bench ${i}` })).body);
    const channel = JSON.parse((await send('POST', `/guilds/${guild.id}/channels`, owner.token, { name: 'door' })).body);
    const invite = await send('POST', `/channels/${channel.id}/invites`, owner.token, { max_age: 0, unique: true });
    if (invite.status !== 200) throw new Error(`create invite: ${invite.status} ${invite.body}`);
    codes[i] = JSON.parse(invite.body).code;
  });

  // Every (user, guild) pair once: guild-major, so consecutive requests hit different invites' users.
  let next = 0;
  const pairs = USERS * GUILDS;
  const acceptRequest = (req) => {
    const n = next++ % pairs;
    const user = users[n % USERS];
    const code = codes[Math.floor(n / USERS)];
    return {
      ...req,
      method: 'POST',
      path: `/api/v9/invites/${code}`,
      headers: { ...req.headers, authorization: user.token, 'content-type': 'application/json' },
      body: '{}',
    };
  };
  const meter = cpuMeter(() => systemCpuGroups(system));
  const authHeaders = async () => ({ authorization: owner.token });
  const scenarios = [
    { key: 'me', name: 'GET /api/v9/users/@me through the gateway', url: `${system.baseUrl}/users/@me`, headers: authHeaders },
    {
      key: 'get',
      name: 'GET /api/v9/invites/{code}?with_counts=true through the gateway',
      url: `${system.baseUrl}/invites/${codes[0]}?with_counts=true`,
      headers: authHeaders,
    },
    {
      key: 'accept',
      name: 'POST /api/v9/invites/{code} (a new member each time) through the gateway',
      url: `${system.baseUrl}/invites/${codes[0]}`,
      headers: authHeaders,
      setupRequest: acceptRequest,
    },
  ];
  const results = [];
  for (const scenario of scenarios) {
    const r = await measure(scenario, { connections: CONNECTIONS, warmupS: WARMUP_S, durationS: DURATION_S, meter });
    results.push({ ...r, key: scenario.key });
  }
  const accepted = next;
  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(loadavgAtStart),
    settings: { users: USERS, guilds: GUILDS, connections: CONNECTIONS, warmupSeconds: WARMUP_S, durationSeconds: DURATION_S, origin },
    acceptsSent: accepted,
    pairs,
    scenarios: results.map(({ cpu: _cpu, ...r }) => r),
  };
  saveResults('invites.json', report);
  const text = render(report);
  process.stdout.write(`\n${text}\n`);
  if (!readmeOff) writeReadmeSection('invites', 'Invites (issue 13)', text);
  if (results.some((r) => r.broken)) process.exitCode = 1;
}

function render(report) {
  const by = Object.fromEntries(report.scenarios.map((s) => [s.key, s]));
  const me = by.me?.rps;
  const lines = [
    `Measured ${report.date} on ${report.machine.cpus}× ${report.machine.cpuModel}, Node ${report.machine.node}; load average at start ` +
      `${report.machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' / ')}. autocannon ${report.settings.connections} connections, ` +
      `${report.settings.warmupSeconds} s warm-up + ${report.settings.durationSeconds} s per scenario; ${report.settings.users} users × ` +
      `${report.settings.guilds} guilds = ${report.pairs} new-member pairs, ${report.acceptsSent} accepts sent (warm-up included).`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | × GET /users/@me | bar | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---|---:|',
  ];
  for (const s of report.scenarios) {
    const ratio = me ? s.rps / me : NaN;
    const bar = BARS[s.key] === undefined ? '' : `≥ ${BARS[s.key]}: ${ratio >= BARS[s.key] ? 'pass' : '**FAIL**'}`;
    lines.push(`| ${s.name} | ${fmt(s.rps, 0)} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(ratio)} | ${bar} | ${s.broken ? s.reason : '0'} |`);
  }
  if (report.acceptsSent > report.pairs)
    lines.push('', `**Warning**: more accepts were sent than new-member pairs exist; raise BENCH_USERS or BENCH_GUILDS.`);
  lines.push(
    '',
    'Accept is measured with every user joining the same guild in turn (guild-major pairs, a popular invite): joins of one guild take turns on its row in guilds (the member count and the 100-guild cap). Not measured here (left for a later run): GUILD_CREATE delivery p99 on the new member’s socket against the HTTP p99, and the 100,000-line target users file against PostgreSQL’s COPY.',
  );
  return lines.join('\n');
}

await runMain(main, { timeoutS: TIMEOUT_S });
