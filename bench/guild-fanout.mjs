#!/usr/bin/env node
// The guild fanout benchmark of Kith (issue 5): `node bench/guild-fanout.mjs`, after `npm run build`.
// In one run, on one system started as `npm start` starts it (its own ports and databases):
//   1. registers BENCH_MEMBERS (1,000) users and an owner through the gateway;
//   2. the owner creates two guilds: a big one, which every user joins through guilds' gRPC
//      AddMember (as an invite would), and a solo one with the owner alone;
//   3. every user (and the owner) opens one identified socket through the gateway: READY carries
//      the big guild, so each socket follows it;
//   4. alternately, one at a time: PATCH /guilds/{solo} (GUILD_UPDATE to one socket: the
//      single-user event) and PATCH /guilds/{big} (GUILD_UPDATE to every member's socket), each
//      timed from sending the request until the LAST socket that should get it has it.
// The bar (issue 5): the big guild's p99 is under 5× the single-user event's p99. It prints the
// table, writes it into bench/README.md (between the guild-fanout markers) and the raw numbers into
// bench/results/guild-fanout.json. Everything it starts is stopped again, also on failure, Ctrl-C
// or the overall time limit. Exits non-zero when a measurement broke (not when the bar fails).
//
// Knobs (defaults in brackets): BENCH_MEMBERS [1000]; BENCH_EVENTS [100] measured events of each
// kind, after BENCH_WARMUP_EVENTS [10] of each not measured; BENCH_SETTLE [5] s of quiet after the
// sockets open; BENCH_PORT_OFFSET [4300]; BENCH_DB_PREFIX [kith_benchgf] (its databases are
// dropped at the start unless BENCH_KEEP_DB=1); BENCH_LOG_LEVEL [warn]; BENCH_TIMEOUT [900] s for
// the whole run; BENCH_NO_README=1; BENCH_REPORT_FROM=<results json> (measure nothing: render a
// saved run's table again).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { createClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { dbPrefix, dropDatabases } from './lib/db.mjs';
import { closeSockets, openSockets } from './lib/gateway-client.mjs';
import { request as httpRequest, pool, registerUsers } from './lib/http.mjs';
import { fmt, percentile } from './lib/load.mjs';
import { readmeOff, writeReadmeSection } from './lib/readme.mjs';
import {
  LOG_LEVEL,
  log,
  machineInfo,
  makeKeys,
  onCleanup,
  positive,
  requireBuilt,
  runMain,
  saveResults,
  sleep,
  startSystem,
} from './lib/system.mjs';

const MEMBERS = Math.round(positive('BENCH_MEMBERS', 1000));
const EVENTS = Math.round(positive('BENCH_EVENTS', 100));
const WARMUP_EVENTS = Math.round(positive('BENCH_WARMUP_EVENTS', 10));
const SETTLE_S = positive('BENCH_SETTLE', 5);
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 4300));
const DB_PREFIX = dbPrefix('kith_benchgf');
const TIMEOUT_S = positive('BENCH_TIMEOUT', 900);
/** The bar: the big guild's p99 under this many times the single-user event's p99. */
const BAR = 5;

/** An event not on every socket this long after the request was sent is lost. */
const LOST_AFTER_MS = 10_000;
/** Registrations and joins in flight at once (argon2 costs ~30 ms of CPU per registration). */
const PARALLEL = 20;
const SOCKET_PARALLEL = 20;
/** Rounds of opening the sockets that are missing or not following the big guild. */
const SOCKET_ROUNDS = 5;

// ---------------------------------------------------------------- HTTP client ----------------

let agent;
const request = (baseUrl, method, apiPath, token, body) => httpRequest(agent, baseUrl, method, apiPath, token, body);

async function createGuild(baseUrl, owner, name) {
  const res = await request(baseUrl, 'POST', '/guilds', owner.token, { name });
  if (res.status !== 201) throw new Error(`POST /guilds: ${res.status} ${res.body.slice(0, 200)}`);
  return JSON.parse(res.body).id;
}

// ---------------------------------------------------------------- measuring ------------------

/**
 * Which sockets have had which GUILD_UPDATE: each event carries a unique guild name, and the
 * measurement waits until the expected number of sockets reported it.
 */
class Arrivals {
  constructor() {
    this.waiting = new Map();
    this.duplicates = 0;
  }

  expect(name, sockets) {
    let resolve;
    const done = new Promise((r) => (resolve = r));
    const entry = { sockets, seen: new Set(), times: [], resolve, done };
    this.waiting.set(name, entry);
    return entry;
  }

  onDispatch = (t, d, arrivedAt, client) => {
    if (t !== 'GUILD_UPDATE') return;
    const entry = this.waiting.get(d?.name);
    if (!entry) return;
    if (entry.seen.has(client)) return void this.duplicates++;
    entry.seen.add(client);
    entry.times.push(arrivedAt);
    if (entry.seen.size === entry.sockets) entry.resolve();
  };
}

/** One PATCH of the guild's name, timed from sending until the last of `sockets` sockets has its GUILD_UPDATE. */
async function oneEvent({ baseUrl, owner, guildId, sockets, arrivals, name, keep = false }) {
  const entry = arrivals.expect(name, sockets);
  const t0 = performance.now();
  const res = await request(baseUrl, 'PATCH', `/guilds/${guildId}`, owner.token, { name });
  if (res.status !== 200) throw new Error(`PATCH /guilds/${guildId}: ${res.status} ${res.body.slice(0, 200)}`);
  let timer;
  const lost = await Promise.race([entry.done.then(() => false), new Promise((r) => (timer = setTimeout(() => r(true), LOST_AFTER_MS)))]);
  clearTimeout(timer);
  arrivals.waiting.delete(name);
  const times = entry.times.map((t) => t - t0).sort((a, b) => a - b);
  if (keep) return entry;
  return {
    httpMs: res.at - t0,
    lastMs: lost ? undefined : times.at(-1),
    medianSocketMs: percentile(Float64Array.from(times), 0.5),
    missing: sockets - entry.seen.size,
  };
}

const stats = (samples) => {
  const sorted = Float64Array.from(samples.filter((x) => x !== undefined)).sort();
  return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) };
};

function render(report) {
  const { solo, big, settings, machine } = report;
  const ratio = big.last.p99 / solo.last.p99;
  const row = (label, sockets, r) =>
    `| ${label} | ${sockets} | ${r.last.n} | ${fmt(r.http.p50)} | ${fmt(r.http.p99)} | ${fmt(r.last.p50)} | ${fmt(r.last.p99)} | ${fmt(r.median.p50)} | ${r.lost} | ${r.missing} |`;
  return [
    `Measured ${report.date} on ${machine.cpus}× ${machine.cpuModel} (\`nproc\` ${machine.nproc}), Node ${machine.node}, ${machine.platform}; load average at start ${machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' / ')}; system started with \`LOG_LEVEL=${settings.logLevel}\`, \`DB_PREFIX=${settings.dbPrefix}\`, port offset ${settings.portOffset}.`,
    '',
    `One guild with ${settings.members} members who joined through AddMember, plus its owner, each with one identified socket through the gateway (${report.sockets} sockets); one guild with its owner alone. Alternately, one at a time, \`PATCH /guilds/{id}\` renames a guild and the GUILD_UPDATE it causes is timed from sending the request until the last socket that should get it has it; ${settings.events} events of each kind after ${settings.warmupEvents} of each not measured. Latencies in ms. Sockets closed by the server meanwhile: ${report.closedByServer}; duplicate dispatches: ${report.duplicates}.`,
    '',
    '| event | sockets reached | events | HTTP p50 | HTTP p99 | last socket p50 | last socket p99 | median socket p50 | lost | socket deliveries missing |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    row('single-user (solo guild)', 1, solo),
    row(`guild fanout (${settings.members + 1} members)`, report.sockets, big),
    '',
    'Performance bar (issue 5), measured in this run:',
    '',
    `- ${ratio < BAR ? '✅' : '❌'} guild fanout p99 < ${BAR} × single-user event p99: ${fmt(ratio)}× (fanout p99 ${fmt(big.last.p99)} ms, single-user p99 ${fmt(solo.last.p99)} ms)`,
    '',
    `For scale: at p50 the fanout takes ${fmt(big.last.p50 / solo.last.p50)}× the single-user event (${fmt(big.last.p50)} vs ${fmt(solo.last.p50)} ms). On a shared 2-core machine the single-user p99 is mostly scheduling noise, so the p99 ratio moves between runs.`,
  ].join('\n');
}

// ---------------------------------------------------------------- sockets --------------------

/**
 * Opens one socket per token, all following the big guild. On a loaded machine some identifies
 * fail (the edge's upstream timeout) and a READY may come without guilds (guilds unreachable for
 * a moment: READY then carries none, by design); a probe event to the big guild finds those, and
 * they are opened again, a few rounds at most.
 */
async function openAll({ baseUrl, wsUrl, owner, bigId, tokens, hooks, arrivals, sockets }) {
  let missing = tokens;
  for (let round = 1; missing.length > 0; round++) {
    if (round > SOCKET_ROUNDS) throw new Error(`${missing.length} sockets still not following the big guild after ${SOCKET_ROUNDS} rounds`);
    log(`opening ${missing.length} sockets (round ${round})…`);
    await openSockets({ url: wsUrl, tokens: missing, count: missing.length, parallel: SOCKET_PARALLEL, hooks, into: sockets });
    const probe = await oneEvent({ baseUrl, owner, guildId: bigId, sockets: sockets.length, arrivals, name: `probe ${round}`, keep: true });
    const stale = sockets.filter((c) => !probe.seen.has(c));
    for (const c of stale) {
      c.close();
      sockets.splice(sockets.indexOf(c), 1);
    }
    const open = new Set(sockets.map((c) => c.token));
    missing = tokens.filter((t) => !open.has(t));
  }
}

// ---------------------------------------------------------------- main -----------------------

async function main() {
  if (process.env.BENCH_REPORT_FROM) {
    // Nothing is measured: the table of a saved run (bench/results/guild-fanout.json) is rendered again.
    const text = render(JSON.parse(readFileSync(process.env.BENCH_REPORT_FROM, 'utf8')));
    process.stdout.write(`${text}\n`);
    writeReadmeSection('guild-fanout', 'Guild fanout (issue 5)', text);
    return 0;
  }
  requireBuilt([
    'packages/platform/dist/index.js',
    'gateway/dist/main.js',
    'services/auth/dist/main.js',
    'services/guilds/dist/main.js',
    'services/realtime/dist/main.js',
  ]);
  const loadavgAtStart = os.loadavg();
  if (!process.env.BENCH_KEEP_DB) {
    log(`dropping the ${DB_PREFIX}_* databases (BENCH_KEEP_DB=1 keeps them)…`);
    await dropDatabases(['auth', 'social', 'guilds'].map((service) => `${DB_PREFIX}_${service}`));
  }
  log(`starting the system (port offset ${OFFSET}, DB_PREFIX=${DB_PREFIX}, LOG_LEVEL=${LOG_LEVEL})…`);
  const system = await startSystem({ offset: OFFSET, dbPrefix: DB_PREFIX, logLevel: LOG_LEVEL, keys: makeKeys() });
  log(`system up: ${system.baseUrl}`);
  const edgePort = system.list.find((p) => p.name === 'gateway').env.PORT;
  const guildsGrpc = system.list.find((p) => p.name === 'guilds').env.GRPC_PORT;
  const wsUrl = `ws://127.0.0.1:${edgePort}/gateway?v=10&encoding=json`;
  const grpc = createClient(GuildsService, `127.0.0.1:${guildsGrpc}`, 30_000);
  onCleanup(async () => grpc.close());

  agent = new http.Agent({ keepAlive: true, maxSockets: PARALLEL });
  log(`registering ${MEMBERS + 1} users through the gateway (${PARALLEL} at a time)…`);
  const members = await registerUsers((...args) => request(system.baseUrl, ...args), MEMBERS + 1, { prefix: 'gf', parallel: PARALLEL });
  const owner = members.pop();
  const bigId = await createGuild(system.baseUrl, owner, 'big guild');
  const soloId = await createGuild(system.baseUrl, owner, 'solo guild');
  log(`joining ${MEMBERS} members to guild ${bigId} through AddMember…`);
  await pool(members.length, PARALLEL, async (i) => {
    const answer = await grpc.addMember({ guildId: bigId, userId: members[i].id });
    if (answer.errorCode !== 0) throw new Error(`AddMember ${members[i].id}: error ${answer.errorCode}`);
  });

  const arrivals = new Arrivals();
  let closedByServer = 0;
  const sockets = [];
  onCleanup(() => closeSockets(sockets));
  const hooks = { onDispatch: arrivals.onDispatch, onClose: () => closedByServer++ };
  await openAll({
    baseUrl: system.baseUrl,
    wsUrl,
    owner,
    bigId,
    tokens: [owner, ...members].map((u) => u.token),
    hooks,
    arrivals,
    sockets,
  });
  log(`settling ${SETTLE_S} s…`);
  await sleep(SETTLE_S * 1000);
  closedByServer = 0;

  const samples = { solo: [], big: [] };
  for (let i = 0; i < WARMUP_EVENTS + EVENTS; i++) {
    const measured = i >= WARMUP_EVENTS;
    const solo = await oneEvent({ baseUrl: system.baseUrl, owner, guildId: soloId, sockets: 1, arrivals, name: `solo ${i}` });
    const big = await oneEvent({ baseUrl: system.baseUrl, owner, guildId: bigId, sockets: sockets.length, arrivals, name: `big ${i}` });
    if (measured) {
      samples.solo.push(solo);
      samples.big.push(big);
    }
    if ((i + 1) % 20 === 0) log(`  ${i + 1} of ${WARMUP_EVENTS + EVENTS} pairs`);
  }
  agent.destroy();

  const summarize = (list) => ({
    http: stats(list.map((s) => s.httpMs)),
    last: stats(list.map((s) => s.lastMs)),
    median: stats(list.map((s) => s.medianSocketMs)),
    lost: list.filter((s) => s.lastMs === undefined).length,
    missing: list.reduce((n, s) => n + s.missing, 0),
  });
  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(loadavgAtStart),
    settings: {
      members: MEMBERS,
      events: EVENTS,
      warmupEvents: WARMUP_EVENTS,
      portOffset: OFFSET,
      dbPrefix: DB_PREFIX,
      logLevel: LOG_LEVEL,
    },
    sockets: sockets.length,
    closedByServer,
    duplicates: arrivals.duplicates + sockets.reduce((n, c) => n + c.duplicates, 0),
    solo: summarize(samples.solo),
    big: summarize(samples.big),
    samples,
  };
  const text = render(report);
  process.stdout.write(`\n### Guild fanout (issue 5)\n\n${text}\n`);
  saveResults('guild-fanout.json', report);
  writeReadmeSection('guild-fanout', 'Guild fanout (issue 5)', text);
  log(`wrote bench/results/guild-fanout.json${readmeOff ? '' : ' and bench/README.md'}`);
  return report.solo.lost || report.big.lost ? 1 : 0;
}

await runMain(main, { timeoutS: TIMEOUT_S });
