#!/usr/bin/env node
// Runs every test tier (unit, integration, end-to-end) with vitest and closes with one plain
// "N passed, N failed" line that any CI can read. Extra arguments go to vitest.
//
// A suite that fails to load, or whose setup (beforeAll, globalSetup) throws, runs no test of its
// own: vitest reports it as a failed file, not as a failed test. Each such file counts as one
// failure here, and so does a run vitest ends non-zero without naming a failure (an error outside
// any test), so the closing line never reads "0 failed" over a red run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTestPrerequisites } from './test-prerequisites.mjs';

const args = process.argv.slice(2);

/** The closing counts from vitest's JSON report and its exit code. */
function countResults(summary, exitCode) {
  const failedTests = summary.numFailedTests ?? 0;
  // Files that failed without a failed test of their own: load errors and setup errors.
  const failedFiles = (summary.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'),
  );
  let failed = failedTests + failedFiles.length;
  const notes = failedFiles.map((file) => `failed without running its tests: ${file.name}`);
  if (exitCode !== 0 && failed === 0) {
    failed = 1;
    notes.push(`vitest exited with code ${exitCode} outside any test (a global setup or an unhandled error; see above)`);
  }
  if (summary.numTotalTests === 0 && failed === 0) {
    failed = 1;
    notes.push('no test ran');
  }
  return {
    passed: summary.numPassedTests ?? 0,
    failed,
    skipped: (summary.numPendingTests ?? 0) + (summary.numTodoTests ?? 0),
    notes,
  };
}

function closingLine({ passed, failed, skipped }) {
  return `tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

function main() {
  const missing = ensureTestPrerequisites(args);
  if (missing) {
    process.stderr.write(`\n${missing}\n`);
    process.stdout.write(`\n${closingLine({ passed: 0, failed: 1, skipped: 0 })}\n`);
    return 1;
  }
  const dir = mkdtempSync(join(tmpdir(), 'kith-test-'));
  const results = join(dir, 'results.json');
  try {
    const run = spawnSync(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...args],
      { stdio: 'inherit' },
    );
    const exitCode = run.status ?? 1;
    let counts;
    try {
      counts = countResults(JSON.parse(readFileSync(results, 'utf8')), exitCode);
    } catch {
      counts = { passed: 0, failed: 1, skipped: 0, notes: [`vitest wrote no results (exit code ${exitCode}; see above)`] };
    }
    process.stdout.write('\n');
    for (const note of counts.notes) process.stdout.write(`${note}\n`);
    process.stdout.write(`${closingLine(counts)}\n`);
    return counts.failed > 0 ? 1 : exitCode;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exit(main());
