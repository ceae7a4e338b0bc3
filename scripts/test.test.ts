import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ensureTestPrerequisites } from './test-prerequisites.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs `node scripts/test.mjs` (what `npm test` runs after the build) over a fixture suite. */
function runRunner(...args: string[]) {
  const run = spawnSync(process.execPath, ['scripts/test.mjs', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, CI: '' } });
  const lines = run.stdout.trim().split('\n');
  return { code: run.status, closing: lines.at(-1), stdout: run.stdout, stderr: run.stderr };
}

// Each test starts node and vitest: a loaded machine can take many seconds for that.
describe('the test runner (scripts/test.mjs)', { timeout: 60_000 }, () => {
  it('when a suite fails to load and another one’s beforeAll throws, then both count as failed and the run exits non-zero', () => {
    const { code, closing, stdout } = runRunner('--root', 'scripts/fixtures/failing-suites');
    expect(closing).toBe('tests: 1 passed, 2 failed, 1 skipped');
    expect(stdout).toContain('failed without running its tests: ' + `${root}scripts/fixtures/failing-suites/broken-import.fixture.ts`);
    expect(stdout).toContain('failed without running its tests: ' + `${root}scripts/fixtures/failing-suites/before-all.fixture.ts`);
    expect(code).toBe(1);
  });

  it('when the global setup throws before any suite runs, then the closing line says failed and the run exits non-zero', () => {
    const { code, closing } = runRunner('--root', 'scripts/fixtures/failing-global-setup');
    expect(closing).toBe('tests: 0 passed, 1 failed');
    expect(code).toBe(1);
  });

  it('when every suite passes, then the closing line says so and the run exits zero', () => {
    const { code, closing } = runRunner('--root', 'scripts/fixtures/failing-suites', 'passing.fixture.ts');
    expect(closing).toBe('tests: 1 passed, 0 failed');
    expect(code).toBe(0);
  });
});

describe('test prerequisites', () => {
  it('when Chromium is missing and cannot be installed, then the run is refused naming the file and how to get it', () => {
    const missing = ensureTestPrerequisites([], { chromium: '/nonexistent/chromium', isRoot: false });
    expect(missing).toContain('missing: /nonexistent/chromium');
    expect(missing).toContain('apt-get install chromium');
  });

  it('when only the unit tier runs, then Chromium is not asked for', () => {
    expect(ensureTestPrerequisites(['--project', 'unit'], { chromium: '/nonexistent/chromium', isRoot: false })).toBeUndefined();
  });
});
