#!/usr/bin/env node
// The billing benchmark (issue 16), in one command (`node bench/billing.mjs`, after `npm run build`):
//   1. starts the whole system as `npm start` does (scripts/start.mjs: the gateway, every service and
//      the local payment gateway speaking Stripe's API), on its own ports (BENCH_PORT_OFFSET, 13400)
//      and databases (kith_benchbill);
//   2. registers BENCH_BUYERS (200) users through the gateway, each with a test card, and one more
//      user holding 20 boost subscriptions;
//   3. drives with autocannon (BENCH_CONNECTIONS, 10), each a warm-up then a measured run:
//        - GET /users/@me (the baseline: auth's authenticated read through the edge),
//        - GET /users/@me/billing/subscriptions for the user with 20 subscriptions,
//        - POST /users/@me/billing/subscriptions: a boost purchase with a fresh load_id, the buyers
//          taken in turn, charged at the local gateway;
//   4. counts, per buyer, the charges the payment gateway took against the subscriptions billing
//      holds: any difference is a duplicate (or lost) charge;
//   5. prints the table, writes it into bench/README.md (between the billing markers) and the raw
//      numbers into bench/results/billing.json. Exits non-zero when a request failed or a charge was
//      doubled (not when a bar is missed).
// The bars: the subscription list reaches ≥ 0.5× and the purchase ≥ 0.15× GET /users/@me's
// requests/s, with zero duplicate charges.
// Knobs: BENCH_DURATION [10], BENCH_WARMUP [2], BENCH_CONNECTIONS [10], BENCH_BUYERS [200],
// BENCH_PORT_OFFSET [13400], BENCH_LOG_LEVEL [warn], BENCH_NO_README=1, BENCH_CPU_PROF=<dir> (a CPU
// profile per process, for bench/cpu-top.mjs --results bench/results/billing.json --window create).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { dbPrefix, dropDatabases } from './lib/db.mjs';
import { processes } from '../scripts/processes.mjs';
import { pool, registerUsers, request } from './lib/http.mjs';
import { fmt, measure } from './lib/load.mjs';
import { cpuMeter } from './lib/proc.mjs';
import { writeReadmeSection } from './lib/readme.mjs';
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

const DURATION_S = positive('BENCH_DURATION', 10);
const WARMUP_S = positive('BENCH_WARMUP', 2);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const BUYERS = Math.round(positive('BENCH_BUYERS', 200));
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 13400));
const DB_PREFIX = dbPrefix('kith_benchbill');
const BOOST_MONTHLY = '590665532894740483';
const LIST_BAR = 0.5;
const CREATE_BAR = 0.15;
const ADDRESS = { name: 'Bench', line_1: '1 Main St', city: 'Springfield', country: 'US' };

async function main() {
  requireBuilt(['services/billing/dist/main.js', 'services/billing/dist/dev/stripe.main.js', 'gateway/dist/main.js']);
  const loadavgAtStart = os.loadavg();
  // Every run starts from empty databases.
  await dropDatabases([...new Set(processes(OFFSET, DB_PREFIX).map((p) => `${DB_PREFIX}_${p.name}`))]);
  const keys = makeKeys();
  // BENCH_CPU_PROF=<dir>: every started process writes a CPU profile there (bench/cpu-top.mjs reads it).
  const env = cpuProfEnv();
  const system = await startSystem({ offset: OFFSET, dbPrefix: DB_PREFIX, logLevel: LOG_LEVEL, keys, env });
  const base = system.baseUrl;
  const gatewayUrl = `http://127.0.0.1:${8113 + OFFSET}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const send = (method, path, token, body) => request(agent, base, method, path, token, body);
  const ok = async (promise, what) => {
    const res = await promise;
    if (res.status < 200 || res.status > 299) throw new Error(`${what}: ${res.status} ${res.body.slice(0, 300)}`);
    return res.body ? JSON.parse(res.body) : undefined;
  };

  log(`registering ${BUYERS + 1} users with a test card each`);
  const users = await registerUsers(send, BUYERS + 1, { prefix: 'bill', parallel: 8 });
  await pool(users.length, 8, async (i) => {
    const card = await ok(
      send('POST', '/users/@me/billing/payment-sources', users[i].token, {
        token: 'pm_card_visa',
        payment_gateway: 1,
        billing_address: ADDRESS,
      }),
      'add card',
    );
    users[i].card = card.id;
  });
  const holder = users[BUYERS];
  const buyers = users.slice(0, BUYERS);
  for (let i = 0; i < 20; i++)
    await ok(
      send('POST', '/users/@me/billing/subscriptions', holder.token, {
        items: [{ plan_id: BOOST_MONTHLY }],
        payment_source_id: holder.card,
        purchase_token: 'bench',
      }),
      'holder purchase',
    );
  const listed = await ok(send('GET', '/users/@me/billing/subscriptions', holder.token), 'list');
  if (listed.length !== 20) throw new Error(`the holder lists ${listed.length} subscriptions, not 20`);

  const meter = cpuMeter(() => systemCpuGroups(system));
  let turn = 0;
  const scenarios = [
    { key: 'me', name: 'GET /users/@me (baseline)', url: `${base}/users/@me`, headers: async () => ({ authorization: holder.token }) },
    {
      key: 'list',
      name: 'GET /users/@me/billing/subscriptions (20 subscriptions)',
      url: `${base}/users/@me/billing/subscriptions`,
      headers: async () => ({ authorization: holder.token }),
    },
    {
      key: 'create',
      name: 'POST /users/@me/billing/subscriptions (charged at the local gateway)',
      // The probe reads the first buyer's list; every measured request is a purchase.
      url: `${base}/users/@me/billing/subscriptions`,
      headers: async () => ({ authorization: buyers[0].token }),
      setupRequest: (req) => {
        const buyer = buyers[turn++ % buyers.length];
        return {
          ...req,
          method: 'POST',
          headers: { ...req.headers, authorization: buyer.token, 'content-type': 'application/json' },
          body: JSON.stringify({
            items: [{ plan_id: BOOST_MONTHLY }],
            payment_source_id: buyer.card,
            purchase_token: 'bench',
            load_id: randomUUID(),
          }),
        };
      },
    },
  ];
  const results = {};
  for (const scenario of scenarios) {
    const r = await measure(scenario, { connections: CONNECTIONS, warmupS: WARMUP_S, durationS: DURATION_S, meter });
    results[scenario.key] = r;
    log(`  ${fmt(r.rps, 0)} req/s${r.broken ? `  !!! BROKEN: ${r.reason ?? `${r.non2xx} non-2xx, ${r.errors} errors`}` : ''}`);
  }

  log('counting charges at the payment gateway against the subscriptions billing holds');
  let charged = 0;
  let held = 0;
  const mismatched = [];
  await pool(buyers.length, 8, async (i) => {
    const gateway = await fetch(`${gatewayUrl}/__kith/charges?user_id=${buyers[i].id}`).then((r) => r.json());
    const subs = await ok(send('GET', '/users/@me/billing/subscriptions?include_inactive=true', buyers[i].token), 'buyer list');
    charged += gateway.count;
    held += subs.length;
    if (gateway.count !== subs.length) mismatched.push({ user: buyers[i].id, charges: gateway.count, subscriptions: subs.length });
  });
  const duplicates = charged - held;

  const me = results.me.rps;
  const listRatio = results.list.rps / me;
  const createRatio = results.create.rps / me;
  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(loadavgAtStart),
    settings: { connections: CONNECTIONS, warmupSeconds: WARMUP_S, durationSeconds: DURATION_S, buyers: BUYERS, logLevel: LOG_LEVEL },
    scenarios: results,
    charges: { charged, held, duplicates, mismatched },
    checks: [
      { name: 'subscription list ≥ 0.5× GET /users/@me', pass: listRatio >= LIST_BAR, detail: `${listRatio.toFixed(2)}×` },
      { name: 'purchase ≥ 0.15× GET /users/@me', pass: createRatio >= CREATE_BAR, detail: `${createRatio.toFixed(2)}×` },
      {
        name: 'zero duplicate charges',
        pass: duplicates === 0 && mismatched.length === 0,
        detail: `${charged} charges for ${held} subscriptions`,
      },
    ],
  };
  const table = render(report);
  process.stdout.write(`\n${table}\n`);
  writeReadmeSection('billing', 'Billing (issue 16)', table);
  saveResults('billing.json', report);
  const broken = Object.values(results).some((r) => r.broken) || duplicates !== 0 || mismatched.length > 0;
  return broken ? 1 : 0;
}

function render(report) {
  const { machine, settings, scenarios, checks } = report;
  const lines = [
    `Measured ${report.date} on ${machine.cpus}× ${machine.cpuModel} (\`nproc\` ${machine.nproc}), Node ${machine.node}; load average at start ` +
      `${machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' / ')}. autocannon ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ` +
      `${settings.durationSeconds} s per scenario, through the gateway, \`LOG_LEVEL=${settings.logLevel}\`; purchases rotate over ${settings.buyers} buyers, each with a fresh load_id.`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | × GET /users/@me | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const s of Object.values(scenarios)) {
    if (s.rps === undefined) {
      lines.push(`| ${s.name} | **BROKEN** | | | | ${String(s.reason).slice(0, 100)} |`);
      continue;
    }
    lines.push(
      `| ${s.name} | ${fmt(s.rps, 0)} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.rps / scenarios.me.rps)} | ${s.non2xx} / ${s.errors + s.timeouts} |`,
    );
  }
  lines.push(
    '',
    `Charges at the payment gateway: ${report.charges.charged} for ${report.charges.held} subscriptions held (duplicates: ${report.charges.duplicates}).`,
    '',
  );
  lines.push('| check | result | measured |', '|---|---|---|');
  for (const c of checks) lines.push(`| ${c.name} | ${c.pass ? 'pass' : '**FAIL**'} | ${c.detail} |`);
  return lines.join('\n');
}

runMain(main, { timeoutS: positive('BENCH_TIMEOUT', 900) });
