#!/usr/bin/env node
// The webhooks benchmark (issue 14): `node bench/webhooks.mjs`, after `npm run build`. In one run,
// on one system started as `npm start` starts it (its own ports and databases):
//   1. throughput: authenticated GET /users/@me against Execute Webhook with wait=true and a short
//      JSON content, each driven by autocannon through the edge (same connections and duration);
//   2. memory: ten concurrent 8 MiB multipart uploads to one webhook, the webhooks process's
//      resident memory read before and at its highest during them;
//   3. fanout: BENCH_VIEWERS (100) members of a guild each with an identified socket; executions at
//      BENCH_RATE (200) per second, each timed from sending it until the last viewer socket has its
//      MESSAGE_CREATE, beside the execute request's own latency.
// It prints the table, writes it into bench/README.md (between the webhooks markers) and the raw
// numbers into bench/results/webhooks.json.
//
// Knobs: BENCH_DURATION [10] s per throughput scenario, BENCH_CONNECTIONS [10], BENCH_VIEWERS [100],
// BENCH_RATE [200] executions/s, BENCH_FANOUT_SECONDS [5], BENCH_PORT_OFFSET [13200],
// BENCH_DB_PREFIX [kith_benchwh], BENCH_LOG_LEVEL [warn], BENCH_NO_README=1.
import http from 'node:http';
import os from 'node:os';
import { createClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { dbPrefix, dropDatabases } from './lib/db.mjs';
import { closeSockets, openSockets } from './lib/gateway-client.mjs';
import { request as httpRequest, pool, registerUsers } from './lib/http.mjs';
import { fmt, measure, percentile } from './lib/load.mjs';
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
  startSystem,
  systemCpuGroups,
} from './lib/system.mjs';

const DURATION_S = positive('BENCH_DURATION', 10);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const VIEWERS = Math.round(positive('BENCH_VIEWERS', 100));
const RATE = positive('BENCH_RATE', 200);
const FANOUT_S = positive('BENCH_FANOUT_SECONDS', 5);
const OFFSET = Math.round(positive('BENCH_PORT_OFFSET', 13200));
const DB_PREFIX = dbPrefix('kith_benchwh');
const UPLOAD_BYTES = 8 * 1024 * 1024;

/** One multipart upload of `bytes` through the edge, streamed from a generator (nothing held here either). */
function upload(baseUrl, path, bytes) {
  const boundary = `kith${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="payload_json"\r\n\r\n{"content":"upload"}\r\n--${boundary}\r\ncontent-disposition: form-data; name="files[0]"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(baseUrl + path);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: url.pathname + url.search,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + bytes + tail.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', () => resolve(0));
    req.write(head);
    const chunk = Buffer.alloc(64 * 1024, 7);
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const n = Math.min(chunk.length, bytes - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

async function main() {
  requireBuilt(['services/webhooks/dist/main.js', 'gateway/dist/main.js']);
  const loadavgAtStart = os.loadavg();
  await dropDatabases(['auth', 'social', 'guilds', 'integrations', 'billing', 'invites', 'webhooks'].map((s) => `${DB_PREFIX}_${s}`));
  const keys = makeKeys();
  const env = cpuProfEnv();
  const system = await startSystem({ offset: OFFSET, dbPrefix: DB_PREFIX, logLevel: LOG_LEVEL, keys, env });
  const { baseUrl, child, list } = system;
  const meter = cpuMeter(() => systemCpuGroups(system));
  log(`system up at ${baseUrl}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const send = (method, path, token, body) => httpRequest(agent, baseUrl, method, path, token, body);
  const [owner, ...viewers] = await registerUsers(send, VIEWERS + 1, { prefix: 'wh', parallel: 10 });
  const guild = JSON.parse((await send('POST', '/guilds', owner.token, { name: 'bench' })).body);
  const channel = JSON.parse((await send('POST', `/guilds/${guild.id}/channels`, owner.token, { name: 'hooks' })).body);
  const webhook = JSON.parse((await send('POST', `/channels/${channel.id}/webhooks`, owner.token, { name: 'bench' })).body);
  const executePath = `/webhooks/${webhook.id}/${webhook.token}`;

  // 1. throughput (bench/lib's measure: probe, warm-up, measured run, CPU per request per process)
  const opts = { connections: CONNECTIONS, warmupS: 3, durationS: DURATION_S, meter };
  const meResult = await measure(
    { name: 'GET /users/@me', url: `${baseUrl}/users/@me`, headers: async () => ({ authorization: owner.token }) },
    opts,
  );
  const executeBody = JSON.stringify({ content: 'hello' });
  const execResult = await measure(
    {
      name: 'Execute Webhook wait=true (POST)',
      // measure()'s probe GETs this (Get Webhook with Token: the webhook is there); every
      // request of the warm-up and the measured run is the execute setupRequest makes.
      url: `${baseUrl}${executePath}`,
      setupRequest: (req) => ({
        ...req,
        method: 'POST',
        path: `/api/v9${executePath}?wait=true`,
        headers: { 'content-type': 'application/json' },
        body: executeBody,
      }),
    },
    opts,
  );
  for (const r of [meResult, execResult]) {
    const per = Object.entries(r.cpu.microsPerRequest)
      .filter(([, us]) => us >= 1)
      .sort((x, y) => y[1] - x[1])
      .map(([label, us]) => `${label} ${fmt(us, 0)}`)
      .join(', ');
    log(`CPU µs per request, ${r.name}: ${per}`);
  }

  // 2. memory under ten concurrent 8 MiB uploads
  const webhooksPid = systemProcesses(root, child.pid, list).find((p) => p.name === 'webhooks')?.pid;
  const rssBefore = rssKiB(webhooksPid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKiB(webhooksPid) ?? 0)), 20);
  const statuses = await Promise.all(Array.from({ length: 10 }, () => upload(baseUrl, `${executePath}?wait=true`, UPLOAD_BYTES)));
  clearInterval(sampler);
  const uploadGrowthMiB = (rssPeak - rssBefore) / 1024;

  // 3. fanout to the viewers' sockets
  log(
    `throughput: me ${fmt(meResult.rps, 0)} req/s, execute ${fmt(execResult.rps, 0)} req/s; uploads ${statuses.join(',')}, +${fmt(uploadGrowthMiB, 1)} MiB`,
  );
  const guilds = createClient(GuildsService, `127.0.0.1:${50054 + OFFSET}`, 60_000);
  await pool(viewers.length, 5, async (i) => void (await guilds.addMember({ guildId: guild.id, userId: viewers[i].id })));
  guilds.close();
  const arrivals = new Map();
  const { clients, failures } = await openSockets({
    url: `ws://127.0.0.1:${new URL(baseUrl).port}/gateway?v=10&encoding=json`,
    tokens: viewers.map((v) => v.token),
    count: viewers.length,
    parallel: 20,
    hooks: {
      onDispatch: (t, d, at) => {
        if (t !== 'MESSAGE_CREATE') return;
        const list = arrivals.get(d.id) ?? [];
        list.push(at);
        arrivals.set(d.id, list);
      },
    },
  });
  if (failures.length) throw new Error(`${failures.length} sockets failed: ${failures[0]}`);
  await sleep(2000);
  const sends = [];
  const total = Math.round(RATE * FANOUT_S);
  const fanoutFromUs = Number(process.hrtime.bigint() / 1000n);
  const fanoutBefore = meter.snapshot();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: total }, async (_, i) => {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const at = performance.now();
      const res = await send('POST', `${executePath}?wait=true`, undefined, { content: `fanout ${i}` });
      sends.push({ at, done: res.at, status: res.status, id: res.status === 200 ? JSON.parse(res.body).id : undefined });
    }),
  );
  const achievedRate = total / ((performance.now() - started) / 1000);
  await sleep(3000);
  // CPU per execution of the fanout stage, its deliveries to every socket included.
  const fanoutCpu = meter.delta(fanoutBefore, meter.snapshot(), total);
  const fanoutWindow = { fromUs: fanoutFromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
  log(
    `CPU µs per execution delivered to ${viewers.length} sockets: ` +
      Object.entries(fanoutCpu.microsPerRequest)
        .filter(([, us]) => us >= 1)
        .sort((x, y) => y[1] - x[1])
        .map(([label, us]) => `${label} ${fmt(us, 0)}`)
        .join(', '),
  );
  await closeSockets(clients);
  const requestMs = sends
    .filter((s) => s.status === 200)
    .map((s) => s.done - s.at)
    .sort((a, b) => a - b);
  const lastSocketMs = [];
  let lost = 0;
  for (const s of sends) {
    const got = s.id ? (arrivals.get(s.id) ?? []) : [];
    if (got.length < viewers.length) lost++;
    else lastSocketMs.push(Math.max(...got) - s.at);
  }
  lastSocketMs.sort((a, b) => a - b);

  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(loadavgAtStart),
    me: meResult,
    execute: execResult,
    scenarios: [
      { key: 'me', ...meResult },
      { key: 'execute', ...execResult },
      { key: 'fanout', window: fanoutWindow, cpu: fanoutCpu },
    ],
    ratio: execResult.rps / meResult.rps,
    uploads: { statuses, rssBeforeMiB: rssBefore / 1024, rssPeakMiB: rssPeak / 1024, growthMiB: uploadGrowthMiB },
    fanout: {
      viewers: viewers.length,
      targetRate: RATE,
      achievedRate,
      executions: total,
      non200: sends.filter((s) => s.status !== 200).length,
      lost,
      requestP99: percentile(requestMs, 0.99),
      requestP50: percentile(requestMs, 0.5),
      deliveryP99: percentile(lastSocketMs, 0.99),
      deliveryP50: percentile(lastSocketMs, 0.5),
    },
  };
  saveResults('webhooks.json', report);
  const f = report.fanout;
  const table = [
    `Measured ${report.date} on ${report.machine.cpus}× ${report.machine.cpuModel}, Node ${report.machine.node}; load average at start ${loadavgAtStart.map((l) => l.toFixed(2)).join(' / ')}. autocannon ${CONNECTIONS} connections, ${DURATION_S} s per scenario, \`LOG_LEVEL=${LOG_LEVEL}\`.`,
    '',
    '| measurement | value | bar | met |',
    '|---|---:|---:|:-:|',
    `| GET /users/@me (authenticated) | ${fmt(meResult.rps, 0)} req/s, p99 ${fmt(meResult.p99)} ms | | |`,
    `| Execute Webhook, wait=true, short JSON | ${fmt(execResult.rps, 0)} req/s, p99 ${fmt(execResult.p99)} ms | | |`,
    `| execute / GET /users/@me | ${fmt(report.ratio * 100, 1)} % | ≥ 35 % | ${report.ratio >= 0.35 ? 'yes' : 'no'} |`,
    `| webhooks RSS growth, 10 × 8 MiB concurrent uploads (${statuses.join(', ')}) | ${fmt(uploadGrowthMiB, 1)} MiB (${fmt(report.uploads.rssBeforeMiB, 1)} → ${fmt(report.uploads.rssPeakMiB, 1)}) | < 64 MiB | ${uploadGrowthMiB < 64 ? 'yes' : 'no'} |`,
    `| MESSAGE_CREATE to the last of ${f.viewers} viewer sockets at ${fmt(f.achievedRate, 0)}/s (target ${RATE}/s): p50 / p99 | ${fmt(f.deliveryP50)} / ${fmt(f.deliveryP99)} ms | | |`,
    `| the execute request itself: p50 / p99 | ${fmt(f.requestP50)} / ${fmt(f.requestP99)} ms | | |`,
    `| delivery p99 / request p99 | ${fmt(f.deliveryP99 / f.requestP99)} × (${f.lost} of ${f.executions} not on every socket, ${f.non200} not 200) | ≤ 2 × | ${f.deliveryP99 <= 2 * f.requestP99 && f.lost === 0 ? 'yes' : 'no'} |`,
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  if (!readmeOff) writeReadmeSection('webhooks', 'Webhooks (issue 14)', table);
  const broken = meResult.broken || execResult.broken || statuses.some((s) => s !== 200);
  return broken ? 1 : 0;
}

runMain(main, { timeoutS: positive('BENCH_TIMEOUT', 600) });
