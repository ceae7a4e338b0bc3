#!/usr/bin/env node
// Renders and checks both deployments against the one list of processes (scripts/processes.mjs):
//   - every k8s overlay, rendered with `kubectl kustomize` (throwaway secrets where the overlay
//     expects generated ones), each object validated against the Kubernetes API schemas
//     (kubernetes-models), then for every process: its workload, its image retagged away from
//     `latest`, the labels the network policies select on, and every key the process refuses to
//     start without in production set in its container, from a ConfigMap or Secret that exists;
//   - docker-compose.yml, interpolated with throwaway secrets, validated against the compose
//     schema, with the same checks per process, and `docker compose config` where a compose client
//     answers.
// Run after `npm run build` (the keys come from each process's built config schema):
//   npm run check:deploy
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { checkCompose } from './deploy/compose.mjs';
import { checkManifests, validateObjects } from './deploy/k8s.mjs';
import { requiredKeysByProcess } from './deploy/settings.mjs';
import { deployedProcesses } from './processes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'kith-deploy-'));
const problems = [];

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (result.error?.code === 'ENOENT') return { missing: true };
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function secrets(dir) {
  const made = run(process.execPath, [join(root, 'scripts/gen-secrets.mjs'), ...(dir ? ['--dir', dir] : [])]);
  if (made.code !== 0) throw new Error(`scripts/gen-secrets.mjs failed: ${made.stderr}`);
  return made.stdout;
}

function renderOverlays() {
  const copy = join(work, 'k8s');
  cpSync(join(root, 'deploy/k8s'), copy, { recursive: true });
  const overlays = readdirSync(join(copy, 'overlays'));
  if (overlays.length === 0) problems.push('deploy/k8s/overlays has no overlay');
  const rendered = [];
  for (const overlay of overlays) {
    const dir = join(copy, 'overlays', overlay);
    // Overlays generate their Secrets from files in secrets/ (git-ignored): throwaway ones here.
    if (readFileSync(join(dir, 'kustomization.yaml'), 'utf8').includes('secrets/') && !existsSync(join(dir, 'secrets')))
      secrets(join(dir, 'secrets'));
    const out = run('kubectl', ['kustomize', dir]);
    if (out.missing)
      throw new Error(
        'kubectl is missing: it renders the k8s overlays (kubectl kustomize). The project machines have it; ' +
          'elsewhere install kubectl 1.27 or newer (Debian 12’s kubernetes-client is 1.20, whose kustomize lacks components).',
      );
    if (out.code !== 0) {
      problems.push(`overlay ${overlay}: kubectl kustomize failed:\n${out.stderr}`);
      continue;
    }
    rendered.push({ overlay, objects: parseAllDocuments(out.stdout).map((d) => d.toJS()) });
  }
  return rendered;
}

function composeClientConfig(envFile) {
  const version = run('docker', ['compose', 'version']);
  if (version.missing || version.code !== 0) return 'no compose client here (docker compose): checked against the schema only';
  const out = run('docker', ['compose', '--env-file', envFile, '-f', join(root, 'docker-compose.yml'), 'config', '--quiet']);
  if (out.code !== 0) problems.push(`docker compose config failed:\n${out.stderr}`);
  return 'docker compose config: ok';
}

try {
  const list = deployedProcesses();
  const required = await requiredKeysByProcess(root, list);

  for (const { overlay, objects } of renderOverlays()) {
    const at = `k8s overlay ${overlay}`;
    problems.push(...(await validateObjects(objects)).map((p) => `${at}: ${p}`));
    problems.push(...checkManifests(objects, list, required).map((p) => `${at}: ${p}`));
    process.stdout.write(`${at}: ${objects.length} objects rendered and checked\n`);
  }

  const envFile = join(work, 'compose.env');
  writeFileSync(envFile, secrets());
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
  problems.push(...checkCompose(compose, envFile, list, required).map((p) => `docker-compose.yml: ${p}`));
  process.stdout.write(
    `docker-compose.yml: ${Object.keys(compose.services ?? {}).length} services checked; ${composeClientConfig(envFile)}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (problems.length > 0) {
  process.stderr.write(`\ndeployments are broken:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('deployments render and validate\n');
