#!/usr/bin/env node
// The integrations and GIFs benchmark (issue 15), in one command (`node bench/integrations.mjs`,
// after `npm run build`). In one run it:
//   1. starts the whole system as `npm start` does (scripts/start.mjs) on its own ports
//      (BENCH_PORT_OFFSET, default 13300) and databases (BENCH_DB_PREFIX, default kith_bench_integrations), with
//      the development GIF and streaming providers it runs;
//   2. registers a user, makes a guild and BENCH_INTEGRATIONS (50) applications, each authorized
//      into the guild through POST /oauth2/authorize (50 app integrations, 50 bots as members);
//   3. fires BENCH_BURST (1,000) concurrent identical searches of a query never asked before
//      through the gateway, and reads from the providers' request counter how many reached Tenor;
//   4. drives, with 10 connections, BENCH_WARMUP (2) s unmeasured then BENCH_DURATION (10) s
//      measured each: GET /users/@me (the baseline), a cached GET /gifs/search, and GET
//      /guilds/{id}/integrations; with CPU per request for each process;
//   5. prints the table, writes it into bench/README.md (between the integrations markers) and
//      the raw numbers into bench/results/integrations.json. Exits non-zero when a scenario
//      answered anything but 2xx (not when a bar is missed).
// Knobs: BENCH_PORT_OFFSET [13300], BENCH_DB_PREFIX [kith_bench_integrations], BENCH_CONNECTIONS [10], BENCH_DURATION [10], BENCH_WARMUP [2],
// BENCH_INTEGRATIONS [50], BENCH_BURST [1000], BENCH_TIMEOUT [300], BENCH_NO_README=1, BENCH_LOG_LEVEL [warn].
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { Agent } from 'undici';
import { dbPrefix, dropDatabases } from './lib/db.mjs';
import { request as httpRequest, registerUsers } from './lib/http.mjs';
import { fmt, measure } from './lib/load.mjs';
import { cpuMeter } from './lib/proc.mjs';
import { writeReadmeSection } from './lib/readme.mjs';
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

const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 13300));
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 2);
const INTEGRATIONS = Math.round(positive('BENCH_INTEGRATIONS', 50));
const BURST = Math.round(positive('BENCH_BURST', 1000));
const TIMEOUT_S = positive('BENCH_TIMEOUT', 300);
const DB_PREFIX = dbPrefix('kith_bench_integrations');
/** Issue 15's bars: cached GIF search ≥ 60% and 50 integrations ≥ 40% of GET /users/@me. */
const GIF_BAR = 0.6;
const LIST_BAR = 0.4;

/** The answer's JSON when it is a 2xx; anything else stops the run, naming the step. */
async function expectOk(answer, what) {
  const a = await answer;
  if (a.status < 200 || a.status >= 300) throw new Error(`${what}: ${a.status} ${a.body.slice(0, 300)}`);
  return a.body ? JSON.parse(a.body) : undefined;
}

/** A developer has at most 25 applications: one more developer per 25. */
const APPS_PER_DEVELOPER = 25;

/** The guild with its integrations, made through the gateway as developers and a manager would. */
async function seed(send) {
  const developers = await registerUsers(send, Math.ceil(INTEGRATIONS / APPS_PER_DEVELOPER) || 1, { prefix: 'intg', parallel: 2 });
  const { token } = developers[0];
  const guild = await expectOk(send('POST', '/guilds', token, { name: 'Bench integrations' }), 'create guild');
  for (let i = 0; i < INTEGRATIONS; i++) {
    const developer = developers[Math.floor(i / APPS_PER_DEVELOPER)].token;
    const app = await expectOk(send('POST', '/applications', developer, { name: `Bench App ${i}` }), 'create application');
    if (i % 2 === 0)
      await expectOk(send('POST', `/applications/${app.id}/commands`, developer, { name: 'ping', description: 'Pong' }), 'command');
    await expectOk(
      send('POST', `/oauth2/authorize?client_id=${app.id}&scope=bot+applications.commands`, token, {
        authorize: true,
        guild_id: guild.id,
        permissions: '0',
      }),
      'authorize',
    );
  }
  const listed = await expectOk(send('GET', `/guilds/${guild.id}/integrations`, token), 'list integrations');
  if (listed.length !== INTEGRATIONS) throw new Error(`expected ${INTEGRATIONS} integrations, got ${listed.length}`);
  return { token, guildId: guild.id };
}

/** BURST identical, never-asked searches at once: how many reached the provider. */
async function burst(base, providersUrl, token) {
  const count = async () => (await (await fetch(`${providersUrl}/_dev/requests`)).json()).tenor;
  const before = await count();
  const q = `burst ${randomBytes(4).toString('hex')}`;
  const agent = new Agent({ connections: BURST, pipelining: 0 });
  const url = `${base}/gifs/search?q=${encodeURIComponent(q)}&media_format=gif&provider=tenor`;
  const t0 = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: BURST }, () =>
      fetch(url, { headers: { authorization: token }, dispatcher: agent }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      ),
    ),
  );
  const ms = performance.now() - t0;
  await agent.close();
  const byStatus = {};
  for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
  return { requests: BURST, providerRequests: (await count()) - before, byStatus, ms };
}

function render(report) {
  const base = report.results.find((r) => r.key === 'me');
  const rows = report.results.map((r) => {
    const ratio = r.rps / base.rps;
    const cpu = r.cpu?.microsPerRequest ?? {};
    const top = ['gateway', 'auth', 'integrations', 'guilds', 'postgres', 'redis-server']
      .map((k) => (cpu[k] !== undefined ? `${k} ${fmt(cpu[k], 0)}` : null))
      .filter(Boolean)
      .join(', ');
    return `| ${r.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(ratio)} | ${r.bar ? `≥ ${r.bar} ${ratio >= r.bar ? 'met' : '**missed**'}` : 'baseline'} | ${top} |`;
  });
  const b = report.burst;
  const m = report.machine;
  return [
    `Run ${report.at}: ${m.nproc} cores (${m.cpuModel}), Node ${m.node}, load average at start ${m.loadavgAtStart.map((l) => l.toFixed(2)).join(' ')}; ${CONNECTIONS} connections, ${DURATION_S} s measured each, system LOG_LEVEL=${LOG_LEVEL}.`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | × GET /users/@me | bar | CPU µs per request (by process) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Single flight: ${b.requests} concurrent identical uncached searches through the gateway caused **${b.providerRequests}** provider request(s) (bar: exactly 1 — ${b.providerRequests === 1 ? 'met' : '**missed**'}); answers ${JSON.stringify(b.byStatus)} in ${fmt(b.ms, 0)} ms.`,
  ].join('\n');
}

async function main() {
  requireBuilt(['gateway/dist/main.js', 'services/integrations/dist/main.js', 'services/integrations/dist/dev/providers.main.js']);
  const loadavgAtStart = os.loadavg();
  await dropDatabases(['auth', 'social', 'guilds', 'integrations', 'invites', 'billing', 'webhooks'].map((s) => `${DB_PREFIX}_${s}`));
  const keys = makeKeys();
  log(`starting the system (port offset ${OFFSET}, DB_PREFIX=${DB_PREFIX})…`);
  const system = await startSystem({ offset: OFFSET, dbPrefix: DB_PREFIX, logLevel: LOG_LEVEL, keys });
  const base = system.baseUrl;
  const providers = system.list.find((p) => p.name === 'providers');
  const providersUrl = `http://127.0.0.1:${providers.env.GIF_PROVIDERS_PORT}`;
  log(`seeding ${INTEGRATIONS} app integrations…`);
  const seeding = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const { token, guildId } = await seed((method, path, token, body) => httpRequest(seeding, base, method, path, token, body));
  seeding.destroy();
  log(`burst of ${BURST} identical uncached searches…`);
  const burstResult = await burst(base, providersUrl, token);
  log(`  ${burstResult.providerRequests} provider request(s); ${JSON.stringify(burstResult.byStatus)}`);

  const meter = cpuMeter(() => systemCpuGroups(system));
  const headers = async () => ({ authorization: token });
  const scenarios = [
    { key: 'me', name: 'GET /users/@me (baseline)', url: `${base}/users/@me`, headers },
    { key: 'gif', name: 'GET /gifs/search, cached', url: `${base}/gifs/search?q=cat&media_format=gif&limit=50`, headers, bar: GIF_BAR },
    {
      key: 'list',
      name: `GET /guilds/{id}/integrations (${INTEGRATIONS})`,
      url: `${base}/guilds/${guildId}/integrations`,
      headers,
      bar: LIST_BAR,
    },
  ];
  const results = [];
  for (const s of scenarios) {
    const r = await measure(s, { connections: CONNECTIONS, warmupS: WARMUP_S, durationS: DURATION_S, meter });
    results.push({ ...r, key: s.key, bar: s.bar });
  }
  const report = { at: new Date().toISOString(), machine: machineInfo(loadavgAtStart), burst: burstResult, results };
  const table = render(report);
  process.stdout.write(`\n${table}\n\n`);
  saveResults('integrations.json', report);
  writeReadmeSection('integrations', 'Integrations and GIFs (issue 15)', table);
  const broken = results.filter((r) => r.broken);
  if (broken.length) {
    process.stderr.write(`\n!!! BROKEN: ${broken.map((b) => `${b.name} (${b.reason})`).join('; ')}\n`);
    return 1;
  }
  return 0;
}

await runMain(main, { timeoutS: TIMEOUT_S });
