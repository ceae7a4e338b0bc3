// autocannon runs with full-resolution latencies and CPU per request, as bench/run.mjs measures.
import autocannon from 'autocannon';
import { log } from './system.mjs';

/** Internal identities live 30 s; re-sign well before that while a scenario runs. */
const REFRESH_HEADERS_EVERY_MS = 10_000;

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/**
 * One autocannon run. Latencies are also kept here at full (sub-millisecond) resolution:
 * autocannon's own histogram rounds to whole milliseconds.
 */
export async function cannon({ url, headers, duration, connections, refreshHeaders, setupRequest }) {
  const latencies = [];
  const clients = [];
  const instance = autocannon({
    url,
    connections,
    pipelining: 1,
    duration,
    headers,
    timeout: 10,
    setupClient: (client) => clients.push(client),
    // Changes each request before it goes (another token per request, say).
    ...(setupRequest ? { requests: [{ setupRequest }] } : {}),
  });
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
  });
  let timer;
  if (refreshHeaders) {
    timer = setInterval(() => {
      refreshHeaders().then(
        (fresh) => {
          for (const client of clients) client.setHeaders(fresh);
        },
        (err) => log(`could not refresh headers: ${err.message}`),
      );
    }, REFRESH_HEADERS_EVERY_MS);
  }
  try {
    const result = await instance;
    return { result, latencies: Float64Array.from(latencies).sort() };
  } finally {
    clearInterval(timer);
  }
}

/** One request first: a scenario that does not answer 2xx is reported broken without loading it. */
async function probe(url, headers) {
  try {
    const res = await fetch(url, { headers });
    const body = await res.text();
    return { ok: res.ok, status: res.status, body: body.slice(0, 300), bytes: Buffer.byteLength(body) };
  } catch (err) {
    return { ok: false, status: 0, body: String(err?.cause?.message ?? err.message) };
  }
}

/**
 * Probe, warm-up, then the measured run of one scenario { name, url, headers?() }, with the CPU
 * each process spent per request (`meter` from proc.mjs's cpuMeter).
 */
export async function measure(scenario, { connections, warmupS, durationS, meter }) {
  log(`scenario: ${scenario.name} — GET ${scenario.url}`);
  const headers = scenario.headers ? await scenario.headers() : {};
  const first = await probe(scenario.url, headers);
  if (!first.ok) return { name: scenario.name, url: scenario.url, broken: true, reason: `probe answered ${first.status}: ${first.body}` };
  const { setupRequest } = scenario;
  await cannon({ url: scenario.url, headers, duration: warmupS, connections, refreshHeaders: scenario.headers, setupRequest });
  const fresh = scenario.headers ? await scenario.headers() : {};
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const before = meter.snapshot();
  const { result, latencies } = await cannon({
    url: scenario.url,
    headers: fresh,
    duration: durationS,
    connections,
    refreshHeaders: scenario.headers,
    setupRequest,
  });
  const cpu = meter.delta(before, meter.snapshot(), result.requests.total);
  const non2xx = result.non2xx ?? 0;
  const errors = (result.errors ?? 0) + (result.timeouts ?? 0);
  const out = {
    name: scenario.name,
    url: scenario.url,
    responseBytes: first.bytes,
    rps: result.requests.average,
    total: result.requests.total,
    p50: percentile(latencies, 0.5),
    p90: percentile(latencies, 0.9),
    p99: percentile(latencies, 0.99),
    max: latencies.length ? latencies[latencies.length - 1] : NaN,
    non2xx,
    errors: result.errors ?? 0,
    timeouts: result.timeouts ?? 0,
    statusCodeStats: result.statusCodeStats,
    throughputBytesPerSec: result.throughput.average,
    cpu,
    /** CLOCK_MONOTONIC µs, the clock of V8's CPU profiles (bench/cpu-top.mjs). */
    window: { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) },
    broken: non2xx > 0 || errors > 0 || result.requests.total === 0,
  };
  if (out.broken)
    out.reason = `${non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors, ${result.timeouts} timeouts`;
  log(`  ${fmt(out.rps, 0)} req/s, p50 ${fmt(out.p50)} ms, p99 ${fmt(out.p99)} ms` + (out.broken ? `  !!! BROKEN: ${out.reason}` : ''));
  return out;
}
