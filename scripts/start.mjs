#!/usr/bin/env node
// Starts the gateway and every service as separate processes with prefixed logs, on the
// PostgreSQL, Redis and NATS of this machine unless their URLs are set in the environment.
// Ctrl-C (or SIGTERM) stops them all cleanly. `npm start` builds first, then runs this.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { processes } from './processes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const offset = Number(process.env.KITH_PORT_OFFSET ?? 0);
const env = { ...process.env };

// A development stack signs internal identities with a key pair made for this run only.
if (!env.INTERNAL_TOKEN_PRIVATE_KEY || !env.INTERNAL_TOKEN_PUBLIC_KEY) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  env.INTERNAL_TOKEN_PUBLIC_KEY = publicKey.export({ type: 'spki', format: 'pem' });
  env.INTERNAL_TOKEN_PRIVATE_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' });
}
// And its processes sign their gRPC calls to each other with one key, also made for this run only.
if (!env.SERVICE_TOKEN_KEY) env.SERVICE_TOKEN_KEY = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });

const list = processes(offset);
const width = Math.max(...list.map((p) => p.name.length));
const children = new Map();
let stopping = false;

function prefixLines(name, stream, out) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) out.write(`${name.padEnd(width)} | ${line}\n`);
  });
  stream.on('end', () => rest && out.write(`${name.padEnd(width)} | ${rest}\n`));
}

async function waitReady(url, name, child) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} was not ready within 60 s (${url})`);
}

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  process.stdout.write('stopping…\n');
  for (const child of children.values()) if (child.exitCode === null) child.kill('SIGTERM');
  const force = setTimeout(() => {
    for (const child of children.values()) if (child.exitCode === null) child.kill('SIGKILL');
  }, 20_000);
  force.unref();
  Promise.all([...children.values()].map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null))).then(() =>
    process.exit(code),
  );
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
  // Services first, the edge last, each once the one before answers /readyz.
  for (const p of list) {
    const child = spawn(process.execPath, ['--enable-source-maps', '--import', '@kith/platform/telemetry', p.entry ?? 'dist/main.js'], {
      cwd: `${root}/${p.dir}`,
      env: { ...env, ...p.env, KITH_PROCESS_NAME: p.name },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.set(p.name, child);
    prefixLines(p.name, child.stdout, process.stdout);
    prefixLines(p.name, child.stderr, process.stderr);
    child.on('exit', (code, signal) => {
      if (!stopping) {
        process.stderr.write(`${p.name} exited (${signal ?? code}); stopping the rest\n`);
        stopAll(1);
      }
    });
    await waitReady(p.readyUrl, p.name, child);
  }
  const gateway = list.find((p) => p.name === 'gateway');
  process.stdout.write(`\nKith is up: ${gateway.baseUrl}\n\n`);
} catch (err) {
  process.stderr.write(`start failed: ${err.message}\n`);
  stopAll(1);
}
