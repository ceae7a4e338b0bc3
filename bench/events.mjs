#!/usr/bin/env node
// The realtime and relationships benchmarks of Kith, in one command (`node bench/events.mjs`,
// after `npm run build`). In one run, on one system started as `npm start` starts it:
//   1. registers BENCH_USERS (1,000) users through the gateway, plus one more who will have them
//      all as friends;
//   2. SOCKET MEMORY (issue 3): resident memory of the realtime process empty, then with 1,000 and
//      5,000 identified idle sockets (heartbeating), each read after a few seconds and a full GC;
//   3. EVENT LATENCY (issue 3): pairs of users with identified sockets; an open-loop driver per
//      action (nickname edits: 1 event per request; role reorders: 10 GUILD_ROLE_UPDATE per
//      request; or friend request / removal toggles) at each target rate in events/s, and times,
//      per request, the HTTP answer and, per event it causes, the dispatch's arrival on its socket;
//   4. RELATIONSHIPS (issue 6): GET /users/@me/relationships for a user with 1,000 friends through
//      the gateway, beside GET /users/@me and the raw node:http baseline, with autocannon as
//      bench/run.mjs drives it.
// It prints the tables, writes them into bench/README.md (three marked sections) and the raw
// numbers into bench/results/events.json. Everything it starts is stopped again, also on failure,
// Ctrl-C or the overall time limit. Exits non-zero when a measurement broke (not when a bar fails).
//
// Knobs (defaults in brackets): BENCH_ONLY=memory,events,relationships [all three];
// BENCH_EVENT_RATES [25,100,1000] events/s; BENCH_EVENT_DURATION [10] s per rate;
// BENCH_EVENT_WARMUP [5] s at BENCH_EVENT_WARMUP_RATE [100]/s, not measured; BENCH_PAIRS [250];
// BENCH_EVENT_ACTION [nickname,roles]: what causes the timed events, each action in turn on the
//   same sockets: friend (request / removal toggles), nickname (friend nickname edits, 1 event per
//   request), roles (a guild owner's PATCH /guilds/{id}/roles moving BENCH_ROLES [10] roles: that
//   many GUILD_ROLE_UPDATE per request, so 1,000 events/s is 100 requests/s);
// BENCH_USERS [1000] (also the friend count); BENCH_SOCKETS [1000,5000]; BENCH_SETTLE [5] s;
// BENCH_DURATION [10], BENCH_WARMUP [2], BENCH_SYSTEM_WARMUP [8], BENCH_CONNECTIONS [10] for the
// autocannon scenarios; BENCH_PORT_OFFSET [4000]; BENCH_DB_PREFIX [kith_benchrt] (its databases
// are dropped at the start unless BENCH_KEEP_DB=1); BENCH_LOG_LEVEL [warn];
// BENCH_TIMEOUT [1200] s for the whole run; BENCH_NO_README=1; BENCH_NO_GC_HOOK=1;
// BENCH_CPU_PROF=<dir> (every system process writes a .cpuprofile there on exit).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { dbPrefix, dbUrl, dropDatabases } from './lib/db.mjs';
import { closeSockets, openSockets } from './lib/gateway-client.mjs';
import { fmt, measure, cannon, percentile } from './lib/load.mjs';
import { cpuMeter, rssKiB, systemProcesses } from './lib/proc.mjs';
import { HTTP_TIMEOUT_MS, request as httpRequest, registerUsers } from './lib/http.mjs';
import { readmeOff, writeReadmeSection } from './lib/readme.mjs';
import {
  LOG_LEVEL,
  CPU_PROF_DIR,
  cpuProfPreload,
  isStopping,
  log,
  machineInfo,
  makeKeys,
  onCleanup,
  positive,
  preloadOptions,
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

const list = (name, fallback) =>
  (process.env[name] || fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const ONLY = new Set(list('BENCH_ONLY', 'memory,events,relationships'));
const RATES = list('BENCH_EVENT_RATES', '25,100,1000').map(Number);
const STAGE_S = positive('BENCH_EVENT_DURATION', 10);
const EVENT_WARMUP_S = positive('BENCH_EVENT_WARMUP', 5);
const EVENT_WARMUP_RATE = positive('BENCH_EVENT_WARMUP_RATE', 100);
const PAIRS = Math.round(positive('BENCH_PAIRS', 250));
/**
 * What causes the events: `friend` toggles a friend request (POST, then DELETE: RELATIONSHIP_ADD /
 * RELATIONSHIP_REMOVE to both users, the social graph's most expensive write); `nickname` edits the
 * nickname a user gives a friend (PATCH: RELATIONSHIP_UPDATE to that user's own socket), the
 * cheapest write that goes the whole way (outbox, relay, JetStream, realtime, socket).
 */
const ACTIONS = list('BENCH_EVENT_ACTION', 'nickname,roles');
for (const a of ACTIONS)
  if (!['friend', 'nickname', 'roles'].includes(a)) throw new Error('BENCH_EVENT_ACTION: friend, nickname and/or roles');
// Friend toggles end friendships that nickname edits need.
if (ACTIONS.includes('friend') && ACTIONS.includes('nickname'))
  throw new Error('BENCH_EVENT_ACTION: friend and nickname cannot run together');
/** Roles each `roles` request moves: one GUILD_ROLE_UPDATE each. */
const ROLES_PER_REQUEST = Math.round(positive('BENCH_ROLES', 10));
/** Events a request of each action causes on the timed ("target") socket. */
const EVENTS_PER_REQUEST = { friend: 1, nickname: 1, roles: ROLES_PER_REQUEST };
const USERS = Math.round(positive('BENCH_USERS', 1000));
const SOCKET_STEPS = list('BENCH_SOCKETS', '1000,5000').map(Number);
const SETTLE_S = positive('BENCH_SETTLE', 5);
const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 2);
const SYSTEM_WARMUP_S = positive('BENCH_SYSTEM_WARMUP', 8);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 4000));
const DB_PREFIX = dbPrefix('kith_benchrt');
const TIMEOUT_S = positive('BENCH_TIMEOUT', 1200);
const GC_HOOK = !process.env.BENCH_NO_GC_HOOK;

/** An event not on its socket this long after the request was sent is lost. */
const LOST_AFTER_MS = 10_000;
/** Registrations in flight at once (argon2 costs ~30 ms of CPU each). */
const REGISTER_PARALLEL = 20;
/** Identifies in flight at once while sockets are opened. */
const SOCKET_PARALLEL = 100;

for (const r of RATES) if (!Number.isFinite(r) || r <= 0) throw new Error(`BENCH_EVENT_RATES: ${r} is not a rate`);
for (const n of SOCKET_STEPS) if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_SOCKETS: ${n} is not a count`);
if (ONLY.has('events') && PAIRS * 2 > USERS) throw new Error(`BENCH_PAIRS=${PAIRS} needs ${PAIRS * 2} users; BENCH_USERS is ${USERS}`);

/** CLOCK_MONOTONIC in µs: the clock of V8's CPU profiles, so bench/cpu-top.mjs can cut a profile to a measured window. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const median = (xs) => percentile(Float64Array.from(xs).sort(), 0.5);

// ---------------------------------------------------------------- HTTP client ----------------

let agent;
const request = (baseUrl, method, apiPath, token, body) => httpRequest(agent, baseUrl, method, apiPath, token, body);

// ---------------------------------------------------------------- memory ---------------------

let gcDir;
/** A full GC in each named process (through bench/lib/gc-hook.mjs), then their RSS and heap. */
async function gcAndRead(procs) {
  const out = {};
  const before = {};
  for (const p of procs) {
    const file = path.join(gcDir ?? '/nonexistent', `${p.name}-${p.pid}.json`);
    before[p.name] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).count : 0;
    if (gcDir) process.kill(p.pid, 'SIGUSR2');
  }
  for (const p of procs) {
    let usage;
    if (gcDir) {
      const file = path.join(gcDir, `${p.name}-${p.pid}.json`);
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        try {
          const u = JSON.parse(readFileSync(file, 'utf8'));
          if (u.count > before[p.name]) {
            usage = u;
            break;
          }
        } catch {
          // not written yet
        }
        await sleep(50);
      }
      if (!usage) log(`no GC report from ${p.name} within 15 s; reading RSS without it`);
    }
    out[p.name] = {
      rssKiB: rssKiB(p.pid),
      heapUsedKiB: usage && usage.heapUsed / 1024,
      externalKiB: usage && usage.external / 1024,
      gcMs: usage?.gcMs,
    };
  }
  return out;
}

async function socketMemory({ wsUrl, users, procs }) {
  const measured = procs.filter((p) => p.name === 'realtime' || p.name === 'gateway');
  if (!measured.some((p) => p.name === 'realtime')) throw new Error('no realtime process found');
  const tokens = users.map((u) => u.token);
  const clients = [];
  let closedEarly = 0;
  const hooks = {
    onClose: (code, c) => {
      if (c.ready && !c.closing && !isStopping()) {
        closedEarly++;
        if (closedEarly <= 5) log(`a ready socket closed with ${code} before the end of the memory test`);
      }
    },
  };
  onCleanup(() => closeSockets(clients));
  log(`socket memory: settling ${SETTLE_S} s, then a GC, for the empty reading…`);
  await sleep(SETTLE_S * 1000);
  const rows = [{ sockets: 0, ...(await gcAndRead(measured)) }];
  log(`  empty: realtime ${(rows[0].realtime.rssKiB / 1024).toFixed(1)} MiB`);
  for (const target of SOCKET_STEPS) {
    const want = target - clients.length;
    if (want <= 0) continue;
    const t0 = performance.now();
    log(`opening ${want} sockets (to ${target}), ${SOCKET_PARALLEL} identifies in flight…`);
    const { failures } = await openSockets({
      url: wsUrl,
      tokens,
      count: want,
      parallel: SOCKET_PARALLEL,
      hooks,
      onProgress: (ok, bad) => log(`  ${ok} ready, ${bad} failed`),
      into: clients,
      stop: isStopping,
    });
    if (isStopping()) throw new Error('stopped');
    const openSeconds = (performance.now() - t0) / 1000;
    if (failures.length) log(`  ${failures.length} sockets failed to reach READY, e.g. ${failures[0]}`);
    await sleep(SETTLE_S * 1000);
    const reading = await gcAndRead(measured);
    const open = clients.filter((c) => c.ready && !c.closed).length;
    rows.push({ sockets: open, target, failures: failures.length, openSeconds, identifiesPerSecond: want / openSeconds, ...reading });
    log(`  ${open} open: realtime ${(reading.realtime.rssKiB / 1024).toFixed(1)} MiB (identify ${(want / openSeconds).toFixed(0)}/s)`);
  }
  log(`closing ${clients.length} sockets…`);
  for (const c of clients) c.closing = true;
  const all = clients.splice(0);
  await closeSockets(all);
  // Counted once closed: an ack still on its way when the last beat went counts too.
  const beats = all.reduce((a, c) => a + c.beats, 0);
  const acks = all.reduce((a, c) => a + c.acks, 0);
  return { rows, closedEarly, heartbeatsSent: beats, heartbeatAcks: acks };
}

// ---------------------------------------------------------------- event latency --------------

async function eventLatency({ baseUrl, wsUrl, users, meter }) {
  const pairs = [];
  for (let i = 0; i < PAIRS; i++) pairs.push({ i, a: users[2 * i], b: users[2 * i + 1], state: 'none' });
  /** `${socket user}|${event}|${d.id}` → records waiting for that dispatch, oldest first. */
  const waiting = new Map();
  const stats = { unexpected: 0, late: 0, other: 0, closed: 0 };
  const expect = (key, rec, field) => {
    let q = waiting.get(key);
    if (!q) waiting.set(key, (q = []));
    q.push({ rec, field });
  };
  const unexpect = (key, rec) => {
    const q = waiting.get(key);
    const at = q?.findIndex((w) => w.rec === rec) ?? -1;
    if (at !== -1) q.splice(at, 1);
  };
  const TIMED = new Set(['RELATIONSHIP_ADD', 'RELATIONSHIP_REMOVE', 'RELATIONSHIP_UPDATE', 'GUILD_ROLE_UPDATE']);
  const onDispatch = (t, d, arrivedAt, client) => {
    if (!TIMED.has(t)) {
      stats.other++;
      return;
    }
    const id = t === 'GUILD_ROLE_UPDATE' ? d?.role?.id : d?.id;
    const w = waiting.get(`${client.userId}|${t}|${id}`)?.shift();
    if (!w) {
      stats.unexpected++;
      return;
    }
    if (arrivedAt - w.rec.sentAt > LOST_AFTER_MS) {
      w.rec[`${w.field}Late`] = true;
      stats.late++;
      return;
    }
    if (w.field !== 'target') w.rec[w.field] = arrivedAt;
    else {
      w.rec.arrivals.push(arrivedAt);
      if (w.rec.arrivals.length === w.rec.expected) w.rec.target = arrivedAt;
    }
  };

  const sockets = [];
  onCleanup(() => closeSockets(sockets));
  log(`event latency: opening ${PAIRS * 2} sockets (${PAIRS} pairs)…`);
  const { clients, failures } = await openSockets({
    url: wsUrl,
    tokens: pairs.flatMap((p) => [p.a.token, p.b.token]),
    count: PAIRS * 2,
    parallel: SOCKET_PARALLEL,
    into: sockets,
    stop: isStopping,
    hooks: {
      onDispatch,
      onClose: (code, c) => {
        if (c.ready && !c.closing && !isStopping()) {
          stats.closed++;
          log(`an event socket was closed by the server (${code})`);
        }
      },
    },
  });
  if (failures.length) throw new Error(`${failures.length} sockets failed to reach READY: ${failures[0]}`);
  const byUser = new Map(clients.map((c) => [c.userId, c]));
  for (const p of pairs)
    if (!byUser.has(p.a.id) || !byUser.has(p.b.id)) throw new Error(`pair ${p.i} has no socket (user ids from tokens wrong?)`);
  const socketTotals = () =>
    clients.reduce((acc, c) => ({ duplicates: acc.duplicates + c.duplicates, gaps: acc.gaps + c.gaps }), { duplicates: 0, gaps: 0 });

  agent = new http.Agent({ keepAlive: true, maxSockets: PAIRS });
  if (ACTIONS.includes('nickname')) {
    log(`event latency: making the ${PAIRS} pairs friends (nickname edits need a friend)…`);
    for (let i = 0; i < pairs.length; i += 25) {
      const batch = pairs.slice(i, i + 25);
      const asked = await Promise.all(
        batch.map((p) => request(baseUrl, 'POST', '/users/@me/relationships', p.a.token, { username: p.b.username })),
      );
      const accepted = await Promise.all(
        batch.map((p) => request(baseUrl, 'PUT', `/users/@me/relationships/${p.a.id}`, p.b.token, { confirm_stranger_request: true })),
      );
      const bad = [...asked, ...accepted].find((r) => r.status !== 204);
      if (bad) throw new Error(`befriending a pair: ${bad.status} ${bad.body.slice(0, 200)}`);
    }
  }
  if (ACTIONS.includes('roles')) {
    log(`event latency: each pair's first user creates a guild with ${ROLES_PER_REQUEST} roles…`);
    for (let i = 0; i < pairs.length; i += 25) {
      await Promise.all(
        pairs.slice(i, i + 25).map(async (p) => {
          const guild = await request(baseUrl, 'POST', '/guilds', p.a.token, { name: `bench ${p.i}` });
          if (guild.status !== 201 && guild.status !== 200)
            throw new Error(`creating a guild: ${guild.status} ${guild.body.slice(0, 200)}`);
          p.guildId = JSON.parse(guild.body).id;
          p.roleIds = [];
          for (let r = 0; r < ROLES_PER_REQUEST; r++) {
            const role = await request(baseUrl, 'POST', `/guilds/${p.guildId}/roles`, p.a.token, { name: `r${r}` });
            if (role.status !== 200) throw new Error(`creating a role: ${role.status} ${role.body.slice(0, 200)}`);
            p.roleIds.push(JSON.parse(role.body).id);
          }
          // Every new role starts at position 1 and pushes the others up: the last one made is at 1.
          // In this order roleIds[r] is at position r + 1, which is where turn 0 of fireRoles puts it.
          p.roleIds.reverse();
        }),
      );
    }
  }
  await sleep(1000); // the set-up's own events arrive before anything is timed

  let idle = [];
  /** A nickname edit: one event, to the actor's own socket, timed as the "target". */
  const fireNickname = (pair) => {
    pair.nick = (pair.nick ?? 0) + 1;
    const rec = newRec(pair, 'nickname', 1, null);
    const key = `${pair.a.id}|RELATIONSHIP_UPDATE|${pair.b.id}`;
    expect(key, rec, 'target');
    rec.sentAt = performance.now();
    rec.done = request(baseUrl, 'PATCH', `/users/@me/relationships/${pair.b.id}`, pair.a.token, { nickname: `n${pair.nick}` }).then((res) =>
      settle(rec, res, pair, [key]),
    );
    return rec;
  };
  /**
   * A role reorder: every role moves one place up (the top one to the bottom), so each of them gets a
   * GUILD_ROLE_UPDATE, to the owner's socket (the guild's only member).
   */
  const fireRoles = (pair) => {
    pair.turn = (pair.turn ?? 0) + 1;
    const rec = newRec(pair, 'roles', pair.roleIds.length, null);
    const keys = pair.roleIds.map((id) => `${pair.a.id}|GUILD_ROLE_UPDATE|${id}`);
    for (const key of keys) expect(key, rec, 'target');
    const n = pair.roleIds.length;
    const moves = pair.roleIds.map((id, r) => ({ id, position: ((r + pair.turn) % n) + 1 }));
    rec.sentAt = performance.now();
    rec.done = request(baseUrl, 'PATCH', `/guilds/${pair.guildId}/roles`, pair.a.token, moves).then((res) => settle(rec, res, pair, keys));
    return rec;
  };
  const fireFriend = (pair) => {
    const kind = pair.state === 'none' ? 'add' : 'remove';
    const event = kind === 'add' ? 'RELATIONSHIP_ADD' : 'RELATIONSHIP_REMOVE';
    const rec = newRec(pair, kind, 1, undefined);
    const targetKey = `${pair.b.id}|${event}|${pair.a.id}`;
    const actorKey = `${pair.a.id}|${event}|${pair.b.id}`;
    expect(targetKey, rec, 'target');
    expect(actorKey, rec, 'actor');
    rec.sentAt = performance.now();
    const done =
      kind === 'add'
        ? request(baseUrl, 'POST', '/users/@me/relationships', pair.a.token, { username: pair.b.username })
        : request(baseUrl, 'DELETE', `/users/@me/relationships/${pair.b.id}`, pair.a.token);
    rec.done = done.then((res) => {
      if (res.status >= 200 && res.status < 300) pair.state = kind === 'add' ? 'pending' : 'none';
      settle(rec, res, pair, [targetKey, actorKey]);
    });
    return rec;
  };
  /** `actor` null: the action times no second socket. */
  function newRec(pair, kind, expected, actor) {
    return { pair: pair.i, kind, expected, arrivals: [], sentAt: 0, respAt: undefined, status: undefined, target: undefined, actor };
  }
  function settle(rec, res, pair, keys) {
    rec.respAt = res.at;
    rec.status = res.status;
    if (res.status < 200 || res.status >= 300) {
      rec.error = res.body.slice(0, 200);
      for (const key of keys) unexpect(key, rec);
    }
    idle.push(pair);
  }
  const FIRE = { nickname: fireNickname, roles: fireRoles, friend: fireFriend };

  /**
   * Open loop: request k is due at t0 + k/rate; a request waits only when every pair is busy. `rate`
   * is in events/s: an action whose request causes n events sends rate/n requests a second.
   */
  const stage = async (action, rate, seconds, label) => {
    const perRequest = EVENTS_PER_REQUEST[action];
    const requestRate = rate / perRequest;
    const fire = FIRE[action];
    const total = Math.max(1, Math.round(requestRate * seconds));
    const recs = [];
    const lag = [];
    let starved = 0;
    const cpuBefore = meter.snapshot();
    const dupBefore = { ...socketTotals(), unexpected: stats.unexpected };
    const fromUs = monotonicUs();
    const t0 = performance.now();
    const hardStop = t0 + seconds * 2000; // a rate the system cannot take ends at twice its duration
    while (recs.length < total && performance.now() < hardStop && !isStopping()) {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - t0) * requestRate) / 1000) + 1);
      while (recs.length < due) {
        const pair = idle.shift();
        if (!pair) {
          starved++;
          break;
        }
        lag.push(now - (t0 + (recs.length * 1000) / requestRate));
        recs.push(fire(pair));
      }
      await sleep(1);
    }
    const lastSent = recs.at(-1).sentAt;
    await Promise.race([Promise.all(recs.map((r) => r.done)), sleep(HTTP_TIMEOUT_MS + 1000)]);
    // Every expected event arrives, or its 10 s are up.
    const settled = () =>
      recs.every((r) => r.status === undefined || r.status < 200 || r.status >= 300 || (r.target !== undefined && r.actor !== undefined));
    while (!settled() && performance.now() < lastSent + LOST_AFTER_MS + 100) await sleep(20);
    await sleep(250); // a duplicate right behind the last event still counts for this stage
    const cpu = meter.delta(cpuBefore, meter.snapshot(), recs.length);
    const window = { fromUs, toUs: monotonicUs() };
    const dupAfter = { ...socketTotals(), unexpected: stats.unexpected };

    const ok = recs.filter((r) => r.status >= 200 && r.status < 300);
    const sorted = (xs) => Float64Array.from(xs).sort();
    const httpMs = sorted(ok.map((r) => r.respAt - r.sentAt));
    // One sample per event: a request that causes ten events counts ten times.
    const eventMs = sorted(ok.flatMap((r) => r.arrivals.map((at) => at - r.sentAt)));
    const actorMs = sorted(ok.filter((r) => typeof r.actor === 'number').map((r) => r.actor - r.sentAt));
    const afterResponseMs = sorted(ok.flatMap((r) => r.arrivals.map((at) => at - r.respAt)));
    const sendSeconds = Math.max((lastSent - t0) / 1000 + 1 / requestRate, seconds);
    const events = ok.reduce((n, r) => n + r.arrivals.length, 0);
    const result = {
      label,
      action,
      eventsPerRequest: perRequest,
      targetRate: rate,
      targetRequestRate: requestRate,
      seconds,
      requests: recs.length,
      plannedRequests: total,
      events,
      achievedRate: recs.length / sendSeconds,
      achievedEventRate: events / sendSeconds,
      completedRate: ok.length / ((Math.max(...ok.map((r) => r.respAt)) - t0) / 1000),
      scheduleLagMs: { p50: median(lag), p99: percentile(sorted(lag), 0.99), max: Math.max(...lag) },
      starvedTicks: starved,
      non2xx: recs.length - ok.length,
      errors: [...new Set(recs.filter((r) => r.error !== undefined).map((r) => `${r.status} ${r.error}`))].slice(0, 5),
      http: { p50: percentile(httpMs, 0.5), p90: percentile(httpMs, 0.9), p99: percentile(httpMs, 0.99), max: httpMs.at(-1) },
      event: { p50: percentile(eventMs, 0.5), p90: percentile(eventMs, 0.9), p99: percentile(eventMs, 0.99), max: eventMs.at(-1) },
      ownSocketEvent: { p50: percentile(actorMs, 0.5), p99: percentile(actorMs, 0.99) },
      eventAfterResponse: { p50: percentile(afterResponseMs, 0.5), p99: percentile(afterResponseMs, 0.99) },
      lost: {
        target: ok.reduce((n, r) => n + r.expected - r.arrivals.length, 0),
        own: ok.filter((r) => r.actor === undefined).length,
      },
      duplicates: dupAfter.duplicates - dupBefore.duplicates + (dupAfter.unexpected - dupBefore.unexpected),
      gaps: dupAfter.gaps - dupBefore.gaps,
      cpu,
      window,
    };
    result.ratio = result.event.p99 / result.http.p99;
    log(
      `  ${label}: ${result.requests} requests (${result.events} events), ${result.achievedRate.toFixed(0)} req/s sent; HTTP p50 ${fmt(result.http.p50)} p99 ${fmt(result.http.p99)} ms; ` +
        `event p50 ${fmt(result.event.p50)} p99 ${fmt(result.event.p99)} ms; lost ${result.lost.target}+${result.lost.own}, dup ${result.duplicates}, non-2xx ${result.non2xx}`,
    );
    if (result.errors.length) log(`  errors: ${result.errors.join(' | ')}`);
    return result;
  };

  const stages = [];
  const warmups = [];
  for (const action of ACTIONS) {
    idle = [...pairs];
    log(`event latency (${action}): warm-up at ${EVENT_WARMUP_RATE} events/s for ${EVENT_WARMUP_S} s (not measured)`);
    const warmup = await stage(action, EVENT_WARMUP_RATE, EVENT_WARMUP_S, `${action} warm-up`);
    warmups.push({
      action,
      rate: EVENT_WARMUP_RATE,
      seconds: EVENT_WARMUP_S,
      requests: warmup.requests,
      lost: warmup.lost,
      duplicates: warmup.duplicates,
    });
    for (const rate of RATES) {
      log(`event latency (${action}): ${rate} events/s for ${STAGE_S} s`);
      stages.push(await stage(action, rate, STAGE_S, `${action} ${rate}/s`));
    }
  }
  const otherDispatches = stats.other;
  const closedByServer = stats.closed;
  for (const c of clients) c.closing = true;
  sockets.splice(0);
  await closeSockets(clients);
  agent.destroy();
  return { pairs: PAIRS, actions: ACTIONS, rolesPerRequest: ROLES_PER_REQUEST, stages, warmups, otherDispatches, closedByServer };
}

// ---------------------------------------------------------------- relationships --------------

async function seedFriends(owner, friends) {
  const client = new pg.Client({ connectionString: dbUrl(`${DB_PREFIX}_social`) });
  await client.connect();
  try {
    const ids = friends.map((f) => f.id);
    // Both sides of each friendship, as the state machine leaves them after an accept.
    await client.query(
      `INSERT INTO relationships (user_id, target_id, type, since)
       SELECT $1::bigint, t, 1, now() FROM unnest($2::bigint[]) AS t
       UNION ALL SELECT t, $1::bigint, 1, now() FROM unnest($2::bigint[]) AS t
       ON CONFLICT (user_id, target_id) DO UPDATE SET type = 1`,
      [owner.id, ids],
    );
    const { rows } = await client.query('SELECT count(*)::int AS n FROM relationships WHERE user_id = $1 AND type = 1', [owner.id]);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

async function relationshipsBench({ baseUrl, users, owner, system, keys, meter }) {
  const friends = users.slice(0, USERS);
  log(`relationships: seeding ${friends.length} friendships of ${owner.username} in ${DB_PREFIX}_social…`);
  const count = await seedFriends(owner, friends);
  const check = await request(baseUrl, 'GET', '/users/@me/relationships', owner.token);
  const listed = check.status === 200 ? JSON.parse(check.body) : [];
  const deleted = listed.filter((r) => r.user?.username === 'deleted_user').length;
  if (check.status !== 200 || listed.length !== friends.length || listed.some((r) => r.type !== 1) || deleted > 0)
    throw new Error(`GET relationships: ${check.status}, ${listed.length} listed (${count} in the table), ${deleted} without a user`);
  log(`  GET /users/@me/relationships lists ${listed.length} friends (${(Buffer.byteLength(check.body) / 1024).toFixed(0)} KiB)`);

  const { IdentitySigner, createClient } = await import('@kith/platform');
  const { AuthService } = await import('@kith/proto/auth/v1/auth');
  const auth = system.list.find((p) => p.name === 'auth');
  const social = system.list.find((p) => p.name === 'social');
  const authClient = createClient(AuthService, `127.0.0.1:${auth.env.GRPC_PORT}`, 5000);
  let account;
  try {
    account = await authClient.validateToken({ token: owner.token, clientIp: '127.0.0.1' });
  } finally {
    authClient.close();
  }
  if (!account.valid || account.userId !== owner.id) throw new Error('ValidateToken disagrees about the owner');
  const signer = await IdentitySigner.fromPem(keys.privateKey);
  const identity = async () => ({
    'x-internal-identity': await signer.sign(
      { userId: account.userId, sessionId: account.sessionId, clientIp: '127.0.0.1', requestId: randomUUID(), fingerprint: null },
      'social',
    ),
  });

  const raw = await startBaseline('raw-http', 'raw-http.mjs');
  const bearer = async () => ({ authorization: owner.token });
  const scenarios = [
    { key: 'raw', name: 'raw node:http hello-world', url: raw.url },
    { key: 'me', name: 'GET /api/v9/users/@me through the gateway', url: `${baseUrl}/users/@me`, headers: bearer },
    {
      key: 'relationships',
      name: `GET /api/v9/users/@me/relationships (${friends.length} friends) through the gateway`,
      url: `${baseUrl}/users/@me/relationships`,
      headers: bearer,
    },
    {
      key: 'direct',
      name: `GET /users/@me/relationships (${friends.length} friends) straight to social`,
      url: `http://127.0.0.1:${social.env.HTTP_PORT}/users/@me/relationships`,
      headers: identity,
    },
  ];
  for (const s of scenarios.filter((sc) => sc.key === 'me' || sc.key === 'relationships')) {
    log(`warming up: ${s.name} (${SYSTEM_WARMUP_S} s)`);
    await cannon({ url: s.url, headers: await s.headers(), duration: SYSTEM_WARMUP_S, connections: CONNECTIONS });
  }
  const results = [];
  for (const s of scenarios) {
    const r = await measure(s, { connections: CONNECTIONS, warmupS: WARMUP_S, durationS: DURATION_S, meter });
    r.key = s.key;
    results.push(r);
  }
  return { friends: friends.length, responseBytes: Buffer.byteLength(check.body), scenarios: results };
}

// ---------------------------------------------------------------- report ---------------------

const mib = (kib) => (kib === undefined ? 'n/a' : (kib / 1024).toFixed(1));
const CPU_COLS = ['load generator (bench)', 'gateway', 'auth', 'social', 'guilds', 'realtime', 'postgres', 'redis-server', 'nats-server'];

/** CPU µs per request summed over every process the table counts (the load generator included). */
const totalMicros = (cpu) => Object.values(cpu.microsPerRequest).reduce((a, v) => a + (Number.isFinite(v) ? v : 0), 0);

function cpuTable(rows, unit) {
  const lines = [];
  lines.push(`| ${unit} | ${CPU_COLS.join(' | ')} | all of these | machine busy (cores) | not ours |`);
  lines.push(`|---|${CPU_COLS.map(() => '---:').join('|')}|---:|---:|---:|`);
  for (const { name, cpu } of rows) {
    if (!cpu) continue;
    const cell = (label) => {
      const v = cpu.microsPerRequest[label];
      return v === undefined || !Number.isFinite(v) ? '–' : v < 0.5 ? '0' : v.toFixed(0);
    };
    lines.push(
      `| ${name} | ${CPU_COLS.map(cell).join(' | ')} | ${totalMicros(cpu).toFixed(0)} | ${fmt(cpu.machineBusyCores)} | ${fmt(cpu.otherCores)} |`,
    );
  }
  return lines;
}

function machineLine(report) {
  const m = report.machine;
  return (
    `Measured ${report.date} on ${m.cpus}× ${m.cpuModel} (\`nproc\` ${m.nproc}), Node ${m.node}, ${m.platform}; ` +
    `load average at start ${m.loadavgAtStart.map((l) => l.toFixed(2)).join(' / ')}; system started with \`LOG_LEVEL=${report.settings.logLevel}\`, ` +
    `\`DB_PREFIX=${report.settings.dbPrefix}\`, port offset ${report.settings.portOffset}.`
  );
}

/** A warning line when other work on the machine took a noticeable share of it during these measurements. */
function noiseLine(rows) {
  const noisy = rows.filter((r) => r?.cpu && r.cpu.otherCores >= 0.25);
  if (noisy.length === 0) return [];
  const worst = Math.max(...noisy.map((r) => r.cpu.otherCores));
  const names = noisy.map((r) => r.label ?? r.name).join('; ');
  return [
    '',
    `⚠ Other work on this machine (processes outside the tables below) used up to ${worst.toFixed(2)} of its ${os.availableParallelism()} cores while these ran: ${names}. ` +
      'Their absolute figures are depressed by it, ratios measured side by side less so.',
  ];
}

const ACTION_TEXT = {
  nickname:
    "friend nickname edits (`PATCH /api/v9/users/@me/relationships/{id}`): one RELATIONSHIP_UPDATE per request, to the editor's own socket",
  friend:
    "friend requests and removals (`POST` / `DELETE /api/v9/users/@me/relationships`): RELATIONSHIP_ADD / _REMOVE to the target's socket (timed) and the actor's",
  roles:
    "role reorders (`PATCH /api/v9/guilds/{id}/roles`, each pair's first user owning a guild of which they are the only member): every request moves all of the guild's {n} roles, one GUILD_ROLE_UPDATE each, to the owner's socket",
};
const UNIT = { nickname: 'nickname edit, 1 event', friend: 'friend request or removal, 2 events', roles: 'role reorder, {n} events' };

function renderEvents(report) {
  const ev = report.events;
  const lines = [machineLine(report), ''];
  if (!ev) return [...lines, 'Not measured in this run.'].join('\n');
  const actions = ev.actions ?? [ev.action];
  const n = String(ev.rolesPerRequest ?? 10);
  const actionOf = (s) => s.action ?? ev.action;
  lines.push(
    `${ev.pairs} user pairs, one identified socket per user. Each action in turn, open loop, ${report.settings.eventStageSeconds} s per rate after a ${report.settings.eventWarmupSeconds} s warm-up at ${report.settings.eventWarmupRate} events/s:`,
  );
  lines.push('');
  for (const action of actions) lines.push(`- **${action}**: ${ACTION_TEXT[action].replace('{n}', n)}.`);
  lines.push('');
  lines.push(
    'Rates are events/s (an action whose request causes n events sends rate/n requests a second). Latencies in ms from sending the request; "event" is each timed dispatch reaching its socket (one sample per event); "event after response" is how long after the HTTP answer it arrived. ' +
      `Sockets closed by the server meanwhile: ${ev.closedByServer}.`,
  );
  lines.push('');
  lines.push(
    '| action | target events/s | requests | events | achieved req/s | achieved events/s | HTTP p50 | HTTP p99 | event p50 | event p99 | event p99 ÷ HTTP p99 | event after response p50 / p99 | lost (timed / own socket) | duplicates | non-2xx |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const s of ev.stages) {
    const events = s.events ?? s.requests;
    lines.push(
      `| ${actionOf(s)} | ${s.targetRate}/s | ${s.requests}${s.requests < s.plannedRequests ? ` of ${s.plannedRequests}` : ''} | ${events} | ${fmt(s.achievedRate, 0)} | ${fmt(s.achievedEventRate ?? s.achievedRate, 0)} | ${fmt(s.http.p50)} | ${fmt(s.http.p99)} | ${fmt(s.event.p50)} | ${fmt(s.event.p99)} | ${fmt(s.ratio)} | ${fmt(s.eventAfterResponse.p50)} / ${fmt(s.eventAfterResponse.p99)} | ${s.lost.target} / ${s.lost.own} | ${s.duplicates} | ${s.non2xx} |`,
    );
  }
  lines.push(...noiseLine(ev.stages));
  lines.push('');
  lines.push('Performance bar (issue 3), measured in this run:');
  lines.push('');
  for (const c of report.checks.filter((x) => x.area === 'events')) lines.push(`- ${c.pass ? '✅' : '❌'} ${c.label}: ${c.detail}`);
  for (const action of actions) {
    const rows = ev.stages.filter((s) => actionOf(s) === action);
    lines.push('');
    lines.push(
      `CPU time each process spent per request (**${action}**: one request = one ${UNIT[action].replace('{n}', n)}) while each rate ran, µs:`,
    );
    lines.push('');
    lines.push(
      ...cpuTable(
        rows.map((s) => ({ name: `${s.targetRate} events/s`, cpu: s.cpu })),
        'target rate',
      ),
    );
    const busiest = rows.at(-1);
    if (busiest?.cpu) {
      const total = totalMicros(busiest.cpu);
      const perRequest = busiest.eventsPerRequest ?? 1;
      lines.push('');
      lines.push(
        `At ${total.toFixed(0)} µs of CPU per request over all these processes (the ${busiest.targetRate} events/s row), ${os.availableParallelism()} cores serve at most ` +
          `~${((os.availableParallelism() * 1e6) / total).toFixed(0)} of these requests a second (~${((os.availableParallelism() * 1e6 * perRequest) / total).toFixed(0)} events/s), however quiet the machine: the path's own ceiling here.`,
      );
    }
  }
  return lines.join('\n');
}

function renderSockets(report) {
  const mem = report.sockets;
  const lines = [machineLine(report), ''];
  if (!mem) return [...lines, 'Not measured in this run.'].join('\n');
  const empty = mem.rows[0];
  lines.push(
    `Identified idle sockets through the edge (\`/gateway?v=10&encoding=json\`), ${mem.users} users with several sockets each, heartbeating at the interval Hello gives. ` +
      `Each reading ${report.settings.settleSeconds} s after the last socket reached READY, right after a full GC in the process (bench/lib/gc-hook.mjs). ` +
      'KiB per socket = (RSS − RSS empty) ÷ sockets; "marginal" is between this row and the one before.',
  );
  lines.push('');
  lines.push(
    '| sockets | realtime RSS MiB | over empty MiB | KiB per socket | marginal KiB per socket | realtime V8 heap used MiB | edge gateway RSS MiB | edge KiB per socket | identifies/s while opening |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  let prev = empty;
  for (const row of mem.rows) {
    const over = row.realtime.rssKiB - empty.realtime.rssKiB;
    const per = row.sockets ? over / row.sockets : NaN;
    const marginal = row.sockets > prev.sockets ? (row.realtime.rssKiB - prev.realtime.rssKiB) / (row.sockets - prev.sockets) : NaN;
    const edgePer = row.sockets && row.gateway ? (row.gateway.rssKiB - empty.gateway.rssKiB) / row.sockets : NaN;
    lines.push(
      `| ${row.sockets}${row.failures ? ` (${row.failures} failed)` : ''} | ${mib(row.realtime.rssKiB)} | ${row.sockets ? mib(over) : '–'} | ${row.sockets ? fmt(per, 1) : '–'} | ${row.sockets ? fmt(marginal, 1) : '–'} | ${mib(row.realtime.heapUsedKiB)} | ${mib(row.gateway?.rssKiB)} | ${row.sockets ? fmt(edgePer, 1) : '–'} | ${row.identifiesPerSecond ? fmt(row.identifiesPerSecond, 0) : '–'} |`,
    );
    prev = row;
  }
  lines.push('');
  lines.push(
    `Sockets closed by the server during the test: ${mem.closedEarly}; heartbeats sent ${mem.heartbeatsSent}, acknowledged ${mem.heartbeatAcks}. ` +
      'The session state each socket also keeps in Redis (resume buffer) is not in these figures.',
  );
  lines.push('');
  lines.push('Performance bar (issue 3), measured in this run:');
  lines.push('');
  for (const c of report.checks.filter((x) => x.area === 'sockets')) lines.push(`- ${c.pass ? '✅' : '❌'} ${c.label}: ${c.detail}`);
  return lines.join('\n');
}

function renderRelationships(report) {
  const rel = report.relationships;
  const lines = [machineLine(report), ''];
  if (!rel) return [...lines, 'Not measured in this run.'].join('\n');
  lines.push(
    `A user with ${rel.friends} friends (registered users, friendships written into social's database); the list is ${(rel.responseBytes / 1024).toFixed(0)} KiB of JSON. ` +
      `autocannon ${report.settings.connections} connections, no pipelining, both system paths warmed ${report.settings.systemWarmupSeconds} s, then ${report.settings.warmupSeconds} s warm-up + ${report.settings.durationSeconds} s per scenario.`,
  );
  lines.push('');
  lines.push('| scenario | req/s | p50 ms | p99 ms | × raw node:http | × GET /users/@me | non-2xx / errors |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|');
  const by = Object.fromEntries(rel.scenarios.map((s) => [s.key, s]));
  for (const s of rel.scenarios) {
    if (s.broken && s.rps === undefined) {
      lines.push(`| ${s.name} | **BROKEN** | | | | | ${s.reason.replace(/\|/g, '\\|').slice(0, 120)} |`);
      continue;
    }
    lines.push(
      `| ${s.name}${s.broken ? ' **BROKEN**' : ''} | ${fmt(s.rps, 0)} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.rps / by.raw?.rps, 3)} | ${s.key === 'raw' ? '–' : fmt(s.rps / by.me?.rps)} | ${s.non2xx} / ${s.errors + s.timeouts} |`,
    );
  }
  lines.push(...noiseLine(rel.scenarios));
  lines.push('');
  lines.push('Performance bar (issue 6), measured in this run:');
  lines.push('');
  for (const c of report.checks.filter((x) => x.area === 'relationships')) lines.push(`- ${c.pass ? '✅' : '❌'} ${c.label}: ${c.detail}`);
  lines.push('');
  lines.push('CPU time each process spent per request during the measured run, µs (postgres counts every postgres process):');
  lines.push('');
  lines.push(
    ...cpuTable(
      rel.scenarios.filter((s) => s.key !== 'raw'),
      'scenario',
    ),
  );
  const me = rel.scenarios.find((s) => s.key === 'me');
  const list = rel.scenarios.find((s) => s.key === 'relationships');
  if (me?.cpu && list?.cpu) {
    const a = totalMicros(list.cpu);
    const b = totalMicros(me.cpu);
    lines.push('');
    lines.push(
      `CPU per request over all these processes: ${a.toFixed(0)} µs for the list vs ${b.toFixed(0)} µs for \`/users/@me\`; ` +
        `on a CPU-bound machine that alone caps the list at ${((b / a) * 100).toFixed(1)}% of \`/users/@me\`'s req/s, whatever else runs on it.`,
    );
  }
  return lines.join('\n');
}

function checks(report) {
  const out = [];
  if (report.events) {
    const ev = report.events;
    for (const action of ev.actions ?? [ev.action])
      for (const rate of [100, 1000]) {
        const s = ev.stages.find((x) => x.targetRate === rate && (x.action ?? ev.action) === action);
        const label = `event p99 ≤ 2 × HTTP p99 at ${rate} events/s (${action})`;
        if (!s) {
          out.push({ area: 'events', label, pass: false, detail: 'rate not run' });
          continue;
        }
        const eventRate = s.achievedEventRate ?? s.achievedRate;
        const reached = eventRate >= rate * 0.95;
        const clean = s.lost.target === 0 && s.lost.own === 0 && s.duplicates === 0 && s.non2xx === 0;
        const pass = s.ratio <= 2 && reached && clean;
        let detail = `${fmt(s.ratio)}× (event p99 ${fmt(s.event.p99)} ms, HTTP p99 ${fmt(s.http.p99)} ms; ${fmt(eventRate, 0)} events/s from ${fmt(s.achievedRate, 0)} requests/s)`;
        if (!reached)
          detail += `, **but ${rate} events/s was not reached: the system took at most ${fmt(s.achievedRate, 0)} of these requests/s on this machine, so the ratio is measured in overload**`;
        if (!clean) detail += `; lost ${s.lost.target}/${s.lost.own}, duplicates ${s.duplicates}, non-2xx ${s.non2xx}`;
        out.push({ area: 'events', label, pass, detail });
      }
  }
  if (report.sockets) {
    const rows = report.sockets.rows;
    const empty = rows[0];
    const last = rows.at(-1);
    const over = last.realtime.rssKiB - empty.realtime.rssKiB;
    const per = over / last.sockets;
    out.push({
      area: 'sockets',
      label: `idle identified socket ≤ 50 KiB of the realtime process (${last.sockets} sockets ≤ ${((last.sockets * 50) / 1024).toFixed(0)} MiB over empty)`,
      pass: per <= 50 && last.sockets === last.target,
      detail: `${per.toFixed(1)} KiB per socket (${mib(over)} MiB over ${mib(empty.realtime.rssKiB)} MiB empty)${last.sockets !== last.target ? `; only ${last.sockets} of ${last.target} sockets open` : ''}`,
    });
  }
  if (report.relationships) {
    const by = Object.fromEntries(report.relationships.scenarios.map((s) => [s.key, s]));
    const label = `GET /users/@me/relationships (${report.relationships.friends} friends) ≥ 30% of GET /users/@me req/s`;
    if (!by.relationships || by.relationships.broken || !by.me || by.me.broken)
      out.push({ area: 'relationships', label, pass: false, detail: 'not measured (a scenario broke)' });
    else {
      const ratio = by.relationships.rps / by.me.rps;
      out.push({
        area: 'relationships',
        label,
        pass: ratio >= 0.3,
        detail: `${(ratio * 100).toFixed(1)}% (${fmt(by.relationships.rps, 0)} vs ${fmt(by.me.rps, 0)} req/s)`,
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------- main -----------------------

/** The README sections of a report (BENCH_REPORT_FROM renders a saved one again). */
function sectionsOf(report) {
  report.checks = checks(report);
  return [
    ['events', 'Event latency (issue 3)', renderEvents(report), report.events],
    ['sockets', 'Socket memory (issue 3)', renderSockets(report), report.sockets],
    ['relationships', 'Relationships list (issue 6)', renderRelationships(report), report.relationships],
  ];
}

function printAndWrite(sections) {
  for (const [, heading, text, measured] of sections) if (measured) process.stdout.write(`\n### ${heading}\n\n${text}\n`);
  for (const [name, heading, text, measured] of sections) if (measured) writeReadmeSection(name, heading, text);
}

async function main() {
  if (process.env.BENCH_REPORT_FROM) {
    // Nothing is measured: the tables of a saved run (bench/results/events.json) are rendered again.
    printAndWrite(sectionsOf(JSON.parse(readFileSync(process.env.BENCH_REPORT_FROM, 'utf8'))));
    return 0;
  }
  requireBuilt([
    'packages/platform/dist/index.js',
    'gateway/dist/main.js',
    'services/auth/dist/main.js',
    'services/social/dist/main.js',
    'services/realtime/dist/main.js',
  ]);
  const loadavgAtStart = os.loadavg();
  const keys = makeKeys();
  if (!process.env.BENCH_KEEP_DB) {
    log(`dropping ${DB_PREFIX}_auth, _social and _guilds (BENCH_KEEP_DB=1 keeps them)…`);
    await dropDatabases(['auth', 'social', 'guilds'].map((service) => `${DB_PREFIX}_${service}`));
  }
  const preload = [];
  const env = {};
  if (GC_HOOK && ONLY.has('memory')) {
    gcDir = mkdtempSync(path.join(os.tmpdir(), 'kith-bench-gc-'));
    onCleanup(() => rmSync(gcDir, { recursive: true, force: true }));
    env.BENCH_GC_DIR = gcDir;
    preload.push(new URL('./lib/gc-hook.mjs', import.meta.url).href);
  }
  if (CPU_PROF_DIR) {
    const profile = cpuProfPreload(CPU_PROF_DIR);
    Object.assign(env, profile.env);
    preload.push(profile.url);
  }
  if (preload.length) env.NODE_OPTIONS = preloadOptions(preload);

  log(`starting the system (port offset ${OFFSET}, DB_PREFIX=${DB_PREFIX}, LOG_LEVEL=${LOG_LEVEL})…`);
  const t0 = Date.now();
  const system = await startSystem({ offset: OFFSET, dbPrefix: DB_PREFIX, logLevel: LOG_LEVEL, keys, env });
  log(`system up in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${system.baseUrl}`);
  const procs = systemProcesses(root, system.child.pid, system.list);
  const edgePort = system.list.find((p) => p.name === 'gateway').env.PORT;
  const wsUrl = `ws://127.0.0.1:${edgePort}/gateway?v=10&encoding=json`;
  const meter = cpuMeter(() => systemCpuGroups(system));

  agent = new http.Agent({ keepAlive: true, maxSockets: REGISTER_PARALLEL });
  log(`registering ${USERS + 1} users through the gateway (${REGISTER_PARALLEL} at a time)…`);
  const tr = performance.now();
  const users = await registerUsers((...args) => request(system.baseUrl, ...args), USERS + 1, { prefix: 'b', parallel: REGISTER_PARALLEL });
  const registerSeconds = (performance.now() - tr) / 1000;
  log(`  done in ${registerSeconds.toFixed(1)} s`);
  const owner = users.pop();
  const me = await request(system.baseUrl, 'GET', '/users/@me', owner.token);
  if (me.status !== 200 || JSON.parse(me.body).id !== owner.id) throw new Error(`GET /users/@me: ${me.status} ${me.body.slice(0, 200)}`);
  agent.destroy();

  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(loadavgAtStart),
    settings: {
      portOffset: OFFSET,
      dbPrefix: DB_PREFIX,
      logLevel: LOG_LEVEL,
      users: USERS,
      pairs: PAIRS,
      rates: RATES,
      eventStageSeconds: STAGE_S,
      eventWarmupSeconds: EVENT_WARMUP_S,
      eventWarmupRate: EVENT_WARMUP_RATE,
      socketSteps: SOCKET_STEPS,
      settleSeconds: SETTLE_S,
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      warmupSeconds: WARMUP_S,
      systemWarmupSeconds: SYSTEM_WARMUP_S,
      gcHook: Boolean(gcDir),
    },
    registerSeconds,
  };
  const linesBefore = system.output.count;

  if (ONLY.has('memory')) {
    report.sockets = await socketMemory({ wsUrl, users, procs });
    report.sockets.users = users.length;
    await sleep(2000);
  }
  if (ONLY.has('events')) report.events = await eventLatency({ baseUrl: system.baseUrl, wsUrl, users, meter });
  if (ONLY.has('relationships'))
    report.relationships = await relationshipsBench({ baseUrl: system.baseUrl, users, owner, system, keys, meter });

  report.systemLogLines = system.output.count - linesBefore;
  report.machine.loadavgAtEnd = os.loadavg();
  const sections = sectionsOf(report);
  for (const [, heading, text, measured] of sections) if (measured) process.stdout.write(`\n### ${heading}\n\n${text}\n`);
  if (report.systemLogLines > 0) {
    log(`the system printed ${report.systemLogLines} log lines during the measurements (LOG_LEVEL=${LOG_LEVEL}); the last ones:`);
    process.stderr.write(`${systemTail(10)}\n`);
  }
  saveResults('events.json', report);
  for (const [name, heading, text, measured] of sections) if (measured) writeReadmeSection(name, heading, text);
  log(`wrote bench/results/events.json${readmeOff ? '' : ' and bench/README.md'}`);

  const broken = report.relationships?.scenarios.filter((s) => s.broken) ?? [];
  if (broken.length) {
    process.stderr.write(`\n!!! ${broken.length} scenario(s) BROKEN: ${broken.map((b) => `${b.name} (${b.reason})`).join('; ')}\n\n`);
    return 1;
  }
  return 0;
}

await runMain(main, { timeoutS: TIMEOUT_S });
