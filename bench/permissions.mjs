#!/usr/bin/env node
// The CheckPermissions benchmark (issue 5), in one command (`node bench/permissions.mjs`, after
// `npm run build`). In one run it:
//   1. starts the guilds service (services/guilds/dist/main.js) on free ports with its own database
//      (dropped first unless BENCH_KEEP_DB=1), on this machine's PostgreSQL, Redis and NATS;
//   2. writes a guild straight into that database: 250 roles (@everyone and 249 more), a member
//      holding BENCH_MEMBER_ROLES (10) of them, a text channel with 100 permission overwrites
//      (@everyone, 90 roles, 9 members, the measured member among them);
//   3. checks one answer of each kind is right, then drives, with the same concurrency
//      (BENCH_CONCURRENCY in-flight calls on one HTTP/2 channel each) and for the same time:
//        - the standard gRPC health Check the service serves (the no-op baseline),
//        - CheckPermissions for that member in that channel (the bar),
//        - CheckPermissions at guild level;
//      each BENCH_WARMUP (3) s unmeasured, then BENCH_DURATION (10) s measured, BENCH_ROUNDS (2)
//      times in alternation (health, channel, guild, health, …), keeping the sum of each;
//   4. prints the table, writes it into bench/README.md (between the permissions markers) and the
//      raw numbers into bench/results/permissions.json. Exits non-zero when a call failed or
//      answered wrongly (not when the bar is missed).
// Knobs: BENCH_CONCURRENCY [32], BENCH_DURATION [10], BENCH_WARMUP [3], BENCH_ROUNDS [2],
// BENCH_MEMBER_ROLES [10], BENCH_DB_PREFIX [kith_benchperm], BENCH_KEEP_DB=1, BENCH_NO_README=1,
// BENCH_LOG_LEVEL [warn]; BENCH_CPU_PROF=<dir> (the service writes a .cpuprofile there on exit); DATABASE_URL, REDIS_URL, NATS_URL as the services read them.
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { Client, Metadata, credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import pg from 'pg';
import { SERVICE_TOKEN_METADATA, configureServiceCalls, serviceCalls } from '@kith/platform';
import { CheckPermissionsRequestSchema, CheckPermissionsResponseSchema } from '@kith/proto/guilds/v1/guilds';
import { DATABASE_URL, dbPrefix, dbUrl, dropDatabases } from './lib/db.mjs';
import { fmt, percentile } from './lib/load.mjs';
import { cpuMeter } from './lib/proc.mjs';
import { writeReadmeSection } from './lib/readme.mjs';
import { LOG_LEVEL, CPU_PROF_DIR, collect, log, makeKeys, onCleanup, positive, root, runMain, saveResults, sleep } from './lib/system.mjs';

const CONCURRENCY = Math.round(positive('BENCH_CONCURRENCY', 32));
const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 3);
const ROUNDS = Math.round(positive('BENCH_ROUNDS', 2));
const MEMBER_ROLES = Math.round(positive('BENCH_MEMBER_ROLES', 10));
const DB_PREFIX = dbPrefix('kith_benchperm');
const ROLES = 250;
const OVERWRITES = 100;
/** Issue 5: CheckPermissions reaches at least half a no-op call's rate. */
const BAR = 0.5;

const bit = (n) => 1n << BigInt(n);
const VIEW_CHANNEL = bit(10);
const SEND_MESSAGES = bit(11);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The guilds service as its own process; stopped (SIGTERM, then SIGKILL) whatever happens. */
async function startGuilds() {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const keys = makeKeys();
  const env = {
    ...process.env,
    HTTP_PORT: String(httpPort),
    GRPC_PORT: String(grpcPort),
    DB_PREFIX,
    LOG_LEVEL,
    INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKey,
    SERVICE_TOKEN_KEY: keys.serviceKey,
    // CheckPermissions never calls auth; nothing needs to listen here.
    AUTH_GRPC_ADDR: `127.0.0.1:${await freePort()}`,
  };
  // The bench calls as a service of the deployment does: every call signed with its key.
  configureServiceCalls(keys.serviceKey, 'bench');
  const profile = CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, 'services/guilds/dist/main.js'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child, 'guilds |');
  // Last resort if this process dies some other way: the service must not outlive it.
  process.on('exit', () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const exited = await Promise.race([new Promise((r) => child.once('exit', () => r(true))), sleep(10_000).then(() => false)]);
    if (!exited) child.kill('SIGKILL');
  });
  const address = `127.0.0.1:${grpcPort}`;
  const Health = makeGenericClientConstructor(healthService, 'Health');
  const probe = new Health(address, credentials.createInsecure());
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the guilds service exited (${child.exitCode}):\n${output.tail()}`);
      const ok = await new Promise((resolve) =>
        probe.check({ service: '' }, { deadline: Date.now() + 1000 }, (err, res) => resolve(!err && res?.status === 'SERVING')),
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`the guilds service did not serve within 60 s:\n${output.tail()}`);
      await sleep(250);
    }
  } finally {
    probe.close();
  }
  return { child, address, output };
}

/** The measured guild, written straight into the service's database (after it migrated it). */
async function buildGuild() {
  const db = new pg.Client({ connectionString: dbUrl(`${DB_PREFIX}_guilds`) });
  await db.connect();
  try {
    const base = BigInt(Date.now()) << 22n;
    let next = 0n;
    const id = () => String(base + next++);
    const guildId = id();
    const ownerId = id();
    const userId = id();
    const channelId = id();
    const roleIds = Array.from({ length: ROLES - 1 }, id);
    const otherUsers = Array.from({ length: 8 }, id);
    await db.query('BEGIN');
    await db.query('INSERT INTO guilds (id, name, owner_id) VALUES ($1, $2, $3)', [guildId, 'bench', ownerId]);
    // @everyone sees and sends; the other roles carry assorted bits (none of them ADMINISTRATOR).
    const rolePermissions = [VIEW_CHANNEL | SEND_MESSAGES, ...roleIds.map((_, i) => bit(i % 40 === 3 ? 4 : i % 40))];
    await db.query(
      `INSERT INTO roles (id, guild_id, name, position, permissions)
       SELECT r.id, $1, 'role ' || r.n, r.n, r.permissions FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS r(id, permissions, n)`,
      [guildId, [guildId, ...roleIds], rolePermissions.map(String)],
    );
    await db.query('INSERT INTO members (guild_id, user_id) SELECT $1, unnest($2::bigint[])', [guildId, [ownerId, userId, ...otherUsers]]);
    // The member's roles are spread over the list, so several of them have overwrites.
    const held = roleIds.filter((_, i) => i % Math.floor(roleIds.length / MEMBER_ROLES) === 0).slice(0, MEMBER_ROLES);
    await db.query('INSERT INTO member_roles (guild_id, user_id, role_id) SELECT $1, $2, unnest($3::bigint[])', [guildId, userId, held]);
    await db.query('INSERT INTO channels (id, type, guild_id, name) VALUES ($1, 0, $2, $3)', [channelId, guildId, 'bench']);
    const targets = [
      { id: guildId, type: 0, allow: 0n, deny: SEND_MESSAGES },
      ...roleIds.slice(0, OVERWRITES - 1 - 1 - otherUsers.length).map((r, i) => ({
        id: r,
        type: 0,
        allow: i % 2 ? SEND_MESSAGES | bit(6) : bit(i % 30),
        deny: i % 3 ? bit(14) : 0n,
      })),
      ...otherUsers.map((u) => ({ id: u, type: 1, allow: bit(6), deny: VIEW_CHANNEL })),
      { id: userId, type: 1, allow: SEND_MESSAGES | bit(15), deny: bit(13) },
    ];
    await db.query(
      `INSERT INTO permission_overwrites (channel_id, target_id, type, allow, deny)
       SELECT $1, t.id, t.type, t.allow, t.deny FROM unnest($2::bigint[], $3::smallint[], $4::bigint[], $5::bigint[]) AS t(id, type, allow, deny)`,
      [
        channelId,
        targets.map((t) => t.id),
        targets.map((t) => t.type),
        targets.map((t) => String(t.allow)),
        targets.map((t) => String(t.deny)),
      ],
    );
    await db.query('COMMIT');
    const counts = await db.query(
      `SELECT (SELECT count(*) FROM roles WHERE guild_id = $1)::int AS roles,
              (SELECT count(*) FROM permission_overwrites WHERE channel_id = $2)::int AS overwrites,
              (SELECT count(*) FROM member_roles WHERE guild_id = $1 AND user_id = $3)::int AS member_roles`,
      [guildId, channelId, userId],
    );
    return { guildId, userId, channelId, ...counts.rows[0] };
  } finally {
    await db.end();
  }
}

/** The service token every call to a service carries (the health check needs none). */
function signed() {
  const metadata = new Metadata();
  metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${serviceCalls.tokenFor('guilds.v1.GuildsService')}`);
  return metadata;
}

/** Generic grpc-js clients for both calls: the same channel options and the same callback path. */
function clients(address) {
  const Health = makeGenericClientConstructor(healthService, 'Health');
  const health = new Health(address, credentials.createInsecure());
  const guilds = new Client(address, credentials.createInsecure());
  const serialize = (m) => Buffer.from(toBinary(CheckPermissionsRequestSchema, create(CheckPermissionsRequestSchema, m)));
  const deserialize = (b) => fromBinary(CheckPermissionsResponseSchema, b);
  const checkPermissions = (request) =>
    new Promise((resolve, reject) =>
      guilds.makeUnaryRequest('/guilds.v1.GuildsService/CheckPermissions', serialize, deserialize, request, signed(), (err, res) =>
        err ? reject(err) : resolve(res),
      ),
    );
  const check = () => new Promise((resolve, reject) => health.check({ service: '' }, (err, res) => (err ? reject(err) : resolve(res))));
  return { check, checkPermissions, close: () => (health.close(), guilds.close()) };
}

/** CONCURRENCY calls in flight for `seconds`; every answer is checked with `valid`. */
async function drive(call, valid, seconds) {
  const latencies = [];
  let errors = 0;
  let wrong = 0;
  let firstProblem;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      try {
        const res = await call();
        latencies.push(performance.now() - started);
        if (!valid(res)) {
          wrong++;
          firstProblem ??= `wrong answer: ${JSON.stringify(res, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`;
        }
      } catch (err) {
        errors++;
        firstProblem ??= err.message;
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { calls: latencies.length, errors, wrong, firstProblem, seconds: (performance.now() - t0) / 1000, latencies };
}

async function main() {
  const started = new Date();
  log(`building…`);
  if (!process.env.BENCH_KEEP_DB) await dropDatabases([`${DB_PREFIX}_guilds`]);
  const { child, address } = await startGuilds();
  const guild = await buildGuild();
  log(`guild ${guild.guildId}: ${guild.roles} roles, channel with ${guild.overwrites} overwrites, member with ${guild.member_roles} roles`);
  const c = clients(address);
  onCleanup(async () => c.close());

  const channelRequest = { userId: guild.userId, guildId: guild.guildId, channelId: guild.channelId, required: String(VIEW_CHANNEL) };
  const guildRequest = { userId: guild.userId, guildId: guild.guildId, channelId: '', required: String(VIEW_CHANNEL) };
  // The expected answers, from a first call each, checked for what the fixture guarantees.
  const inChannel = await c.checkPermissions(channelRequest);
  const inGuild = await c.checkPermissions(guildRequest);
  const perms = (r) => BigInt(r.permissions);
  if (!inChannel.member || !inChannel.allowed || perms(inChannel) & bit(13) || !(perms(inChannel) & bit(15))) {
    throw new Error(`unexpected channel answer ${JSON.stringify(inChannel)}`);
  }
  if (!inGuild.member || !inGuild.allowed) throw new Error(`unexpected guild answer ${JSON.stringify(inGuild)}`);
  const same = (expected) => (res) =>
    res.member === expected.member && res.allowed === expected.allowed && res.permissions === expected.permissions;

  const scenarios = [
    { key: 'health', name: 'gRPC health Check (no-op baseline)', call: c.check, valid: (r) => r.status === 'SERVING' },
    {
      key: 'channel',
      name: `CheckPermissions in a channel (${guild.roles} roles, ${guild.overwrites} overwrites)`,
      call: () => c.checkPermissions(channelRequest),
      valid: same(inChannel),
    },
    {
      key: 'guild',
      name: `CheckPermissions at guild level (${guild.roles} roles)`,
      call: () => c.checkPermissions(guildRequest),
      valid: same(inGuild),
    },
  ];
  // PostgreSQL's share: the server processes behind the service's connections to its database.
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  onCleanup(() => admin.end());
  let backends = [];
  const meter = cpuMeter(() => ({ guilds: [child.pid], postgres: backends }));
  const totals = Object.fromEntries(
    scenarios.map((s) => [s.key, { calls: 0, errors: 0, wrong: 0, seconds: 0, latencies: [], cpu: 0, problems: [] }]),
  );
  const loadAvg = os.loadavg()[0];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const s of scenarios) {
      log(`round ${round}/${ROUNDS}: ${s.name}: ${WARMUP_S} s warm-up, ${DURATION_S} s measured, ${CONCURRENCY} in flight`);
      await drive(s.call, s.valid, WARMUP_S);
      const { rows } = await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [`${DB_PREFIX}_guilds`]);
      backends = rows.map((r) => r.pid);
      const before = meter.snapshot();
      const r = await drive(s.call, s.valid, DURATION_S);
      const cpu = meter.delta(before, meter.snapshot(), r.calls);
      const t = totals[s.key];
      t.calls += r.calls;
      t.errors += r.errors;
      t.wrong += r.wrong;
      t.seconds += r.seconds;
      t.cpu += cpu.seconds.guilds;
      t.pgCpu = (t.pgCpu ?? 0) + cpu.seconds.postgres;
      t.benchCpu = (t.benchCpu ?? 0) + cpu.seconds['load generator (bench)'];
      for (const l of r.latencies) t.latencies.push(l);
      if (r.firstProblem) t.problems.push(r.firstProblem);
    }
  }

  const rows = scenarios.map((s) => {
    const t = totals[s.key];
    const sorted = Float64Array.from(t.latencies).sort();
    return {
      key: s.key,
      name: s.name,
      calls: t.calls,
      errors: t.errors,
      wrong: t.wrong,
      rate: t.calls / t.seconds,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      guildsMicrosPerCall: (t.cpu * 1e6) / t.calls,
      postgresMicrosPerCall: (t.pgCpu * 1e6) / t.calls,
      benchMicrosPerCall: (t.benchCpu * 1e6) / t.calls,
      problems: t.problems,
    };
  });
  const by = Object.fromEntries(rows.map((r) => [r.key, r]));
  const ratio = by.channel.rate / by.health.rate;
  const broken = rows.filter((r) => r.errors || r.wrong);

  const table = [
    `Run ${started.toISOString()} on ${os.cpus().length} cores, load average ${fmt(loadAvg)} at the start; ${CONCURRENCY} calls in flight, ` +
      `${ROUNDS} × ${DURATION_S} s measured per scenario (after ${WARMUP_S} s warm-up each), alternating.`,
    '',
    '| scenario | calls/s | × health Check | p50 ms | p99 ms | CPU µs/call: guilds | PostgreSQL | bench (client) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.rate, 0)} | ${fmt(r.rate / by.health.rate)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.guildsMicrosPerCall, 0)} | ${fmt(r.postgresMicrosPerCall, 0)} | ${fmt(r.benchMicrosPerCall, 0)} |`,
    ),
    '',
    `- ${ratio >= BAR ? '✅' : '❌'} CheckPermissions in the 250-role / 100-overwrite channel reaches ≥ ${BAR}× the health Check's rate: ${fmt(ratio)}×`,
    ...(broken.length
      ? [`- ❌ **broken**: ${broken.map((r) => `${r.name}: ${r.errors} errors, ${r.wrong} wrong answers (${r.problems[0]})`).join('; ')}`]
      : ['- every answer was checked: no errors, no wrong answers']),
  ].join('\n');
  console.log(`\n${table}\n`);
  saveResults('permissions.json', {
    started,
    concurrency: CONCURRENCY,
    durationS: DURATION_S,
    rounds: ROUNDS,
    loadAvg,
    guild,
    ratio,
    rows,
  });
  writeReadmeSection('permissions', 'CheckPermissions (issue 5)', table);
  return broken.length === 0 ? 0 : 1;
}

await runMain(main);
