// Writes a results section into bench/README.md between `<!-- <name>:start -->` and
// `<!-- <name>:end -->`; a section not there yet is appended under `heading`. BENCH_NO_README=1
// leaves the README alone (every benchmark has that knob).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { benchDir } from './system.mjs';

export const readmeOff = Boolean(process.env.BENCH_NO_README);

export function writeReadmeSection(name, heading, body) {
  if (readmeOff) return;
  const file = path.join(benchDir, 'README.md');
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${body}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Kith benchmarks\n\n';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  text = a !== -1 && b > a ? text.slice(0, a) + block + text.slice(b + end.length) : `${text.trimEnd()}\n\n## ${heading}\n\n${block}\n`;
  writeFileSync(file, text);
}
