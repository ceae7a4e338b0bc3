#!/usr/bin/env node
// Runs every test tier (unit, integration, end-to-end) with vitest and closes with one plain
// "N passed, N failed" line that any CI can read. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'kith-test-'));
const results = join(dir, 'results.json');
const run = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${results}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
let code = run.status ?? 1;
try {
  const summary = JSON.parse(readFileSync(results, 'utf8'));
  const skipped = summary.numPendingTests + summary.numTodoTests;
  process.stdout.write(
    `\ntests: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
  );
  if (summary.numTotalTests === 0) code = 1;
} catch {
  process.stdout.write('\ntests: no results were written\n');
  code = code || 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
