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
//   3. GUILD_CREATE latency: BENCH_LATENCY_USERS more users, each with an identified gateway socket,
//      accept one fresh guild's invite (BENCH_CONNECTIONS at a time); for each accept, the HTTP
//      answer's latency and the GUILD_CREATE's arrival on the new member's socket, both from the
//      moment the request was sent;
//   4. the target users file: 100,000 user ids (seeded straight into auth's users table: 100,000
//      registrations would take hours of argon2) uploaded with Create Channel Invite, timed until
//      the job is COMPLETED, against PostgreSQL's COPY of the same file into a table keyed the same way.
// The bars: Get Invite with counts ≥ 60% and Accept ≥ 25% of GET /users/@me's req/s; GUILD_CREATE
// p99 ≤ 2× the HTTP p99 of the same accepts; the file in under 10× COPY's time. It prints
// the table, writes it into bench/README.md (between the invites markers) and the raw numbers into
// bench/results/invites.json.
//
// Knobs: BENCH_USERS [200], BENCH_GUILDS [40] (pairs = users × guilds must outlast the Accept
// run), BENCH_DURATION [10] s, BENCH_WARMUP [2] s, BENCH_CONNECTIONS [10], BENCH_PORT_OFFSET [4700],
// BENCH_DB_PREFIX [kith_benchinv], BENCH_LOG_LEVEL [warn], BENCH_TIMEOUT [900] s, BENCH_NO_README=1,
// BENCH_SKIP (latency,file: leave those stages out while iterating), BENCH_CPU_PROF=<dir> (every
// system process writes a .cpuprofile there on exit; read it with bench/cpu-top.mjs --results
// bench/results/invites.json --window accept). Each scenario logs the CPU µs each process spent per request.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { closeSockets, openSockets } from './lib/gateway-client.mjs';
import { dbPrefix, dbUrl, dropDatabases } from './lib/db.mjs';
import { request as httpRequest, pool, registerUsers } from './lib/http.mjs';
import { fmt, measure, percentile } from './lib/load.mjs';
import { cpuMeter } from './lib/proc.mjs';
import { readmeOff, writeReadmeSection } from './lib/readme.mjs';
import {
  LOG_LEVEL,
  cpuProfEnv,
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
const LATENCY_USERS = Math.round(positive('BENCH_LATENCY_USERS', 200));
const FILE_USERS = Math.round(positive('BENCH_FILE_USERS', 100_000));
const PARALLEL = 20;
const BARS = { get: 0.6, accept: 0.25, guildCreate: 2, file: 10 };
/** Stages to leave out while iterating on one (comma-separated: latency, file); the table shows them as skipped. */
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));

async function main() {
  requireBuilt(['services/invites/dist/main.js']);
  const loadavgAtStart = os.loadavg();
  await dropDatabases(['auth', 'social', 'guilds', 'invites', 'integrations', 'billing', 'webhooks'].map((s) => `${DB_PREFIX}_${s}`));
  const env = cpuProfEnv();
  const system = await startSystem({ offset: OFFSET, dbPrefix: DB_PREFIX, logLevel: LOG_LEVEL, keys: makeKeys(), env });
  log(`system up: ${system.baseUrl}`);
  const origin = new URL(system.baseUrl).origin;
  const agent = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });
  const send = (method, path, token, body) => httpRequest(agent, system.baseUrl, method, path, token, body);

  log(`registering ${USERS + LATENCY_USERS + 1} users (${PARALLEL} at a time)…`);
  const users = await registerUsers(send, USERS + LATENCY_USERS + 1, { prefix: 'inv', parallel: PARALLEL });
  const owner = users.pop();
  const latencyUsers = users.splice(USERS, LATENCY_USERS);
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
    if (r.cpu) log(`  CPU µs per request: ${cpuLine(r.cpu.microsPerRequest)}`);
    results.push({ ...r, key: scenario.key });
  }
  const accepted = next;
  const guildCreate = SKIP.has('latency') ? undefined : await guildCreateLatency(system, send, owner, latencyUsers);
  const file = SKIP.has('file') ? undefined : await targetUsersFile(system, send, owner);
  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(loadavgAtStart),
    settings: {
      users: USERS,
      guilds: GUILDS,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_S,
      durationSeconds: DURATION_S,
      latencyUsers: LATENCY_USERS,
      fileUsers: FILE_USERS,
      origin,
    },
    acceptsSent: accepted,
    pairs,
    scenarios: results.map(({ cpu, ...r }) => ({ ...r, cpuMicrosPerRequest: cpu ? rounded(cpu.microsPerRequest) : undefined })),
    guildCreate,
    file,
  };
  saveResults('invites.json', report);
  const text = render(report);
  process.stdout.write(`\n${text}\n`);
  if (!readmeOff) writeReadmeSection('invites', 'Invites (issue 13)', text);
  if (results.some((r) => r.broken)) process.exitCode = 1;
}

/** The CPU each process spent per request, busiest first (µs), for the log. */
function cpuLine(perRequest) {
  return Object.entries(perRequest)
    .filter(([, us]) => us >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([label, us]) => `${label} ${Math.round(us)}`)
    .join(', ');
}

function rounded(perRequest) {
  return Object.fromEntries(Object.entries(perRequest).map(([label, us]) => [label, Math.round(us)]));
}

/** A guild with a channel and an unlimited, never-expiring invite made by `owner`: its id and code. */
async function guildWithInvite(send, owner, name) {
  const guild = JSON.parse((await send('POST', '/guilds', owner.token, { name })).body);
  const channel = JSON.parse((await send('POST', `/guilds/${guild.id}/channels`, owner.token, { name: 'door' })).body);
  const invite = await send('POST', `/channels/${channel.id}/invites`, owner.token, { max_age: 0, unique: true });
  if (invite.status !== 200) throw new Error(`create invite: ${invite.status} ${invite.body}`);
  return { guildId: guild.id, channelId: channel.id, code: JSON.parse(invite.body).code };
}

/**
 * Each latency user, online through its own socket, accepts one invite (CONNECTIONS at a time): the
 * HTTP latency and the GUILD_CREATE's arrival on that user's socket, both from the request's start.
 */
async function guildCreateLatency(system, send, owner, latencyUsers) {
  const { guildId, code } = await guildWithInvite(send, owner, 'latency');
  const arrivals = new Map();
  const hooks = {
    onDispatch: (t, d, arrivedAt, client) => {
      if (t === 'GUILD_CREATE' && d?.id === guildId) arrivals.get(client.token)?.(arrivedAt);
    },
  };
  log(`opening ${latencyUsers.length} gateway sockets…`);
  const wsUrl = `${new URL(system.baseUrl).origin.replace(/^http/, 'ws')}/gateway?v=10&encoding=json`;
  const { clients, failures } = await openSockets({
    url: wsUrl,
    tokens: latencyUsers.map((u) => u.token),
    count: latencyUsers.length,
    parallel: 20,
    hooks,
  });
  if (failures.length > 0) throw new Error(`sockets failed: ${failures.slice(0, 3).join('; ')}`);
  const httpMs = [];
  const delivered = [];
  let lost = 0;
  let refused = 0;
  log(`measuring GUILD_CREATE delivery over ${latencyUsers.length} accepts…`);
  await pool(latencyUsers.length, CONNECTIONS, async (i) => {
    const user = latencyUsers[i];
    const arrived = new Promise((resolve) => arrivals.set(user.token, resolve));
    const start = performance.now();
    const res = await send('POST', `/invites/${code}`, user.token, {});
    httpMs.push(performance.now() - start);
    if (res.status !== 200) return void refused++;
    const at = await Promise.race([arrived, new Promise((resolve) => setTimeout(() => resolve(undefined), 30_000))]);
    if (at === undefined) lost++;
    else delivered.push(at - start);
  });
  await closeSockets(clients);
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const h = sorted(httpMs);
  const g = sorted(delivered);
  return {
    accepts: latencyUsers.length,
    refused,
    lost,
    httpP50: percentile(h, 0.5),
    httpP99: percentile(h, 0.99),
    guildCreateP50: percentile(g, 0.5),
    guildCreateP99: percentile(g, 0.99),
  };
}

/**
 * The target users file against COPY: FILE_USERS users seeded into auth's users table, their ids
 * as a CSV; PostgreSQL's COPY of that file into a table keyed like the invite's target users, then
 * the same file uploaded with Create Channel Invite and timed until its job is COMPLETED.
 */
async function targetUsersFile(system, send, owner) {
  const auth = new pg.Client({ connectionString: dbUrl(`${DB_PREFIX}_auth`) });
  const invites = new pg.Client({ connectionString: dbUrl(`${DB_PREFIX}_invites`) });
  await Promise.all([auth.connect(), invites.connect()]);
  try {
    log(`seeding ${FILE_USERS} users into auth…`);
    const base = 1_100_000_000_000_000_000n;
    await auth.query(
      `INSERT INTO users (id, username) SELECT $1::bigint + g, 'filebench' || g FROM generate_series(1, $2::int) AS g ON CONFLICT DO NOTHING`,
      [base.toString(), FILE_USERS],
    );
    const ids = Array.from({ length: FILE_USERS }, (_, i) => (base + BigInt(i + 1)).toString());
    const csv = `user_id\n${ids.join('\n')}\n`;
    const csvPath = path.join(os.tmpdir(), `kith-bench-target-users-${process.pid}.csv`);
    writeFileSync(csvPath, csv, { mode: 0o644 });

    // COPY (server side, the same file) into a logged table keyed as invite_target_users is: (code, user_id).
    await invites.query('DROP TABLE IF EXISTS copy_bench');
    await invites.query(
      'CREATE TABLE copy_bench (code text NOT NULL DEFAULT $$bench$$, user_id bigint NOT NULL, PRIMARY KEY (code, user_id))',
    );
    const copyStart = performance.now();
    await invites.query(`COPY copy_bench (user_id) FROM '${csvPath}' WITH (FORMAT csv, HEADER true)`);
    const copyMs = performance.now() - copyStart;
    await invites.query('DROP TABLE copy_bench');

    const { channelId } = await guildWithInvite(send, owner, 'file');
    const form = new globalThis.FormData();
    form.set('max_age', '0');
    form.set('target_users_file', new globalThis.Blob([csv], { type: 'text/csv' }), 'users.csv');
    const start = performance.now();
    const res = await fetch(`${system.baseUrl}/channels/${channelId}/invites`, {
      method: 'POST',
      headers: { authorization: owner.token },
      body: form,
    });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
    const uploadMs = performance.now() - start;
    let job;
    for (;;) {
      ({
        rows: [job],
      } = await invites.query(
        'SELECT status, processed_users, error_message, extract(epoch FROM completed_at - created_at) * 1000 AS job_ms FROM invite_target_jobs WHERE code = $1',
        [body.code],
      ));
      if (job && job.status >= 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const totalMs = performance.now() - start;
    if (job.status !== 2) throw new Error(`job failed: ${job.error_message}`);
    return { users: FILE_USERS, copyMs, uploadMs, jobMs: Number(job.job_ms), totalMs, processed: job.processed_users };
  } finally {
    await Promise.all([auth.end(), invites.end()]);
  }
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
  const gc = report.guildCreate;
  const gcRatio = gc ? gc.guildCreateP99 / gc.httpP99 : NaN;
  if (gc)
    lines.push(
      '',
      `GUILD_CREATE on the new member's socket (${gc.accepts} accepts of one guild's invite, ${report.settings.connections} at a time, each user online; times from the request's start):`,
      '',
      '| measure | p50 ms | p99 ms | GUILD_CREATE p99 ÷ HTTP p99 | bar | refused / lost |',
      '|---|---:|---:|---:|---|---:|',
      `| HTTP answer to Accept Invite | ${fmt(gc.httpP50)} | ${fmt(gc.httpP99)} |  |  | ${gc.refused} |`,
      `| GUILD_CREATE arrival | ${fmt(gc.guildCreateP50)} | ${fmt(gc.guildCreateP99)} | ${fmt(gcRatio)} | ≤ ${BARS.guildCreate}: ${gcRatio <= BARS.guildCreate && gc.lost === 0 ? 'pass' : '**FAIL**'} | ${gc.lost} |`,
    );
  const f = report.file;
  const fRatio = f ? f.totalMs / f.copyMs : NaN;
  if (f)
    lines.push(
      '',
      `Target users file of ${f.users.toLocaleString('en-US')} user ids (users seeded into auth's table; the file's ids checked with auth's FindUnknownUserIds, 10,000 a call):`,
      '',
      '| measure | ms | × COPY | bar |',
      '|---|---:|---:|---|',
      `| PostgreSQL COPY of the same CSV into a (code, user_id)-keyed logged table | ${fmt(f.copyMs, 0)} | 1.00 |  |`,
      `| upload through the gateway (Create Channel Invite answered) | ${fmt(f.uploadMs, 0)} | ${fmt(f.uploadMs / f.copyMs)} |  |`,
      `| job until its completing transaction began (database clock) | ${fmt(f.jobMs, 0)} | ${fmt(f.jobMs / f.copyMs)} |  |`,
      `| upload start → job COMPLETED | ${fmt(f.totalMs, 0)} | ${fmt(fRatio)} | < ${BARS.file}: ${fRatio < BARS.file ? 'pass' : '**FAIL**'} |`,
    );
  lines.push(
    '',
    `Accept is measured with every user joining the same guild in turn (guild-major pairs, a popular invite). Joins of one guild no longer take turns (guilds only key-share locks the guild row and counts members in counter slots): Accept went from 0.07× (loaded machine) to 0.15× (loaded) and 0.12× (quiet machine, 2026-11-25 05:38), still under its 0.25 bar. An accept crosses five processes where the baseline crosses two (gateway → invites → guilds → auth, and PostgreSQL); the CPU profile (BENCH_CPU_PROF) shows no single hot spot, its cost is per round trip and per gRPC call. Since: invites counts a use of an unlimited invite in one statement, guilds takes the membership lock with the guild row, reads channels with their overwrites, and sends its events with COMMIT (7 round trips per join instead of 10), and AddMember no longer serialises the GUILD_CREATE invites never read (omit_guild). What is left: auth's GetUsers per join (a gRPC call costing auth about as much as a whole GET /users/@me), the gateway's per-caller rate-limit leases (a new caller each accept), and the join's remaining reads.`,
  );
  return lines.join('\n');
}

await runMain(main, { timeoutS: TIMEOUT_S });
