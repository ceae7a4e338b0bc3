// What the test tiers need beyond `npm ci` and the servers the project's machines run
// (PostgreSQL, Redis, NATS): Debian's Chromium, which the passkey browser test drives
// (services/auth/test/integration/passkey-browser.test.ts). Installed here when missing and
// possible (root with apt-get); otherwise the run fails saying what is missing and how to get it.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The vitest projects of this repository a run selects: all three unless `--project` names some,
 * none when `--root`, `--dir` or `--config` points vitest at another suite.
 */
function selectedProjects(args) {
  if (args.some((arg) => /^--(root|dir|config)(=|$)/.test(arg))) return [];
  const named = args.flatMap((arg, i) =>
    arg === '--project' ? [args[i + 1]] : arg.startsWith('--project=') ? [arg.slice('--project='.length)] : [],
  );
  return named.length > 0 ? named : ['unit', 'integration', 'e2e'];
}

function aptInstall(pkg) {
  process.stdout.write(`Chromium is missing: installing Debian's ${pkg} (the passkey browser test drives it)\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const argv of [
    ['update', '-qq'],
    ['install', '-y', '-qq', pkg],
  ]) {
    const run = spawnSync('apt-get', argv, { stdio: ['ignore', 'inherit', 'inherit'], env });
    if (run.status !== 0) return false;
  }
  return true;
}

/**
 * Makes sure the selected tests can run; returns what is missing and how to get it, or undefined.
 * `chromium` and `isRoot` are there for this module's own test.
 */
export function ensureTestPrerequisites(args, { chromium = CHROMIUM, isRoot = process.getuid?.() === 0 } = {}) {
  if (!selectedProjects(args).includes('integration') || executable(chromium)) return undefined;
  const canInstall = isRoot && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (canInstall && aptInstall('chromium') && executable(chromium)) return undefined;
  return [
    `missing: ${chromium} (Debian's chromium package), which services/auth/test/integration/passkey-browser.test.ts drives.`,
    canInstall
      ? 'Installing it with apt-get failed (see above); fix that, then run the tests again.'
      : 'Install it as root with `apt-get install chromium` (or `sudo apt-get install chromium`), then run the tests again.',
  ].join('\n');
}
