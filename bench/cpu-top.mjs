#!/usr/bin/env node
// Where the CPU went, from the .cpuprofile files a run with BENCH_CPU_PROF=<dir> left, cut to one
// measured window of that run (its stage or scenario in bench/results/*.json carries `window`,
// in CLOCK_MONOTONIC µs, the clock V8's profiles use):
//
//   node bench/cpu-top.mjs <dir> [--results bench/results/events.json] [--window <label>] [--top 15]
//
// <label> is an event rate's label ("100/s") or a scenario's key ("relationships"); without it
// the whole profile counts. Prints, per process, self time by module (package, node internals,
// Kith's own code) and the top functions by self time.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    results: { type: 'string', default: 'bench/results/events.json' },
    window: { type: 'string' },
    top: { type: 'string', default: '15' },
  },
});
const dir = positionals[0];
if (!dir) {
  console.error('usage: node bench/cpu-top.mjs <profile dir> [--results file] [--window label] [--top n]');
  process.exit(2);
}
const top = Number(values.top);

let window;
if (values.window) {
  const results = JSON.parse(readFileSync(values.results, 'utf8'));
  const candidates = [
    ...(results.events?.stages ?? []).map((s) => [s.label, s.window]),
    ...(results.relationships?.scenarios ?? []).map((s) => [s.key, s.window]),
    // An array of scenarios carrying their key, or (billing.json) an object keyed by scenario.
    ...(Array.isArray(results.scenarios)
      ? results.scenarios.map((s) => [s.key, s.window])
      : Object.entries(results.scenarios ?? {}).map(([key, s]) => [key, s.window])),
  ];
  window = candidates.find(([label]) => label === values.window)?.[1];
  if (!window) {
    console.error(`no window "${values.window}" in ${values.results}; there are: ${candidates.map(([l]) => l).join(', ')}`);
    process.exit(2);
  }
}

/** node_modules/<pkg> (scoped too), node:internal, Kith's workspace, or "(program)/(gc)/(idle)". */
function moduleOf(url, fn) {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node internals';
  const m = /\/(services\/[^/]+|packages\/[^/]+|gateway)\//.exec(url);
  return m ? `kith ${m[1]}` : url;
}

for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort()) {
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
    total += dt;
  }
  const byFn = new Map();
  const byModule = new Map();
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const fn = functionName || '(anonymous)';
    if (fn === '(idle)') {
      idle += us;
      continue;
    }
    const key = `${fn} ${url ? `${url.replace(/^file:\/\/.*?\/(node_modules|services|packages|gateway)\//, '$1/')}:${lineNumber + 1}` : ''}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
    const mod = moduleOf(url, fn);
    byModule.set(mod, (byModule.get(mod) ?? 0) + us);
  }
  const busy = total - idle;
  if (busy <= 0) continue;
  const pct = (us) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  console.log(
    `\n== ${file}: ${(busy / 1e6).toFixed(2)} s on CPU${window ? ` in window "${values.window}"` : ''} (${(idle / 1e6).toFixed(2)} s idle)`,
  );
  console.log('  by module:');
  for (const [m, us] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`    ${pct(us)}  ${m}`);
  console.log('  top functions (self):');
  for (const [f, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`    ${pct(us)}  ${f}`);
}
