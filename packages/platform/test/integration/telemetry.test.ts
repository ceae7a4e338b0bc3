import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpCollector, type OtlpCollector } from '../../src/testing/index.js';

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
// server span, then exits; the SDK flushes its batch on the way out. It also says whether a span
// it starts itself would be recorded: false unless an SDK was registered.
const SCRIPT = `
import http from 'node:http';
import { trace } from '@opentelemetry/api';
const probe = trace.getTracer('probe').startSpan('probe');
console.log('recording=' + probe.isRecording());
probe.end();
const server = http.createServer((req, res) => res.end('ok'));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
await fetch('http://127.0.0.1:' + server.address().port + '/traced');
server.close();
`;

describe('telemetry loaded with node --import', () => {
  let collector: OtlpCollector;
  beforeAll(async () => {
    collector = await startOtlpCollector();
  });
  afterAll(() => collector.close());

  it('when an OTLP endpoint is configured, then the process exports its spans to it', async () => {
    const { code, output } = await runInstrumented(
      { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'telemetry-test', OTEL_BSP_SCHEDULE_DELAY: '100' },
      SCRIPT,
    );
    expect(code, output).toBe(0);
    expect(output).toContain('recording=true');
    await expect
      .poll(
        () =>
          collector.spans.filter((s) => s.service === 'telemetry-test').map((s) => s.attributes['url.path'] ?? s.attributes['http.target']),
        {
          timeout: 10_000,
        },
      )
      .toContain('/traced');
  });

  // Were the SDK started anyway, its exporter would post to the default localhost:4318, which this
  // test cannot watch; what it can see is that no tracer provider was registered at all.
  it('when no endpoint is configured, then no tracing is loaded and the process runs normally', async () => {
    const { code, output } = await runInstrumented({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' }, SCRIPT);
    expect(code, output).toBe(0);
    expect(output).toContain('recording=false');
  });
});
