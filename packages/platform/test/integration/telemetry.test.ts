import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Received {
  path: string;
  contentType: string | undefined;
  body: string;
}

/** A loopback OTLP/HTTP collector: records what exporters post to it. */
async function startCollector() {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
}

/** A process started the way every Kith process starts: `node --import @kith/platform/telemetry`. */
function runInstrumented(env: Record<string, string>, script: string): Promise<{ code: number | null; output: string }> {
  const cwd = fileURLToPath(new URL('../..', import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', '@kith/platform/telemetry', '--input-type=module', '-e', script], {
      cwd,
      env: { ...process.env, ...env },
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

// The instrumented process serves one HTTP request to itself, so the http instrumentation makes a
// server span, then exits; the SDK flushes its batch on the way out.
const SCRIPT = `
import http from 'node:http';
const server = http.createServer((req, res) => res.end('ok'));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
await fetch('http://127.0.0.1:' + server.address().port + '/traced');
server.close();
`;

describe('telemetry loaded with node --import', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  beforeAll(async () => {
    collector = await startCollector();
  });
  afterAll(() => collector.close());

  it('when an OTLP endpoint is configured, then the process exports its spans to it', async () => {
    const { code, output } = await runInstrumented(
      { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'telemetry-test', OTEL_BSP_SCHEDULE_DELAY: '100' },
      SCRIPT,
    );
    expect(code, output).toBe(0);
    await expect.poll(() => collector.received.filter((r) => r.path === '/v1/traces').length, { timeout: 10_000 }).toBeGreaterThan(0);
    const traces = collector.received
      .filter((r) => r.path === '/v1/traces')
      .map((r) => r.body)
      .join('\n');
    expect(traces).toContain('telemetry-test');
    expect(traces).toContain('/traced');
  });

  it('when no endpoint is configured, then nothing is exported and the process runs normally', async () => {
    const before = collector.received.length;
    const { code, output } = await runInstrumented({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' }, SCRIPT);
    expect(code, output).toBe(0);
    expect(collector.received.length).toBe(before);
  });
});
