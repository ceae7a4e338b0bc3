import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLP_SPAN_KIND, startOtlpCollector, type OtlpCollector } from '../../src/testing/index.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const platformDir = join(root, 'packages/platform');

/** Every `package.Service/Method` declared under proto/: read from the sources, not from our build. */
function declaredMethods(): string[] {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.proto') ? [join(dir, e.name)] : [],
    );
  return files(join(root, 'proto')).flatMap((file) => {
    const text = readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '');
    const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1];
    return [...text.matchAll(/\bservice\s+(\w+)\s*\{([^}]*)\}/g)].flatMap(([, service, body]) =>
      [...body!.matchAll(/\brpc\s+(\w+)\s*\(/g)].map(([, rpc]) => `${pkg}.${service}/${rpc}`),
    );
  });
}

interface ChildResult {
  services: string[];
  called: string[];
  failed: string[];
  shadowed: string[];
}

/** Runs the fixture as every Kith process runs (`--import @kith/platform/telemetry`), tracing to the collector. */
function runEveryContract(collectorUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', '@kith/platform/telemetry', 'test/integration/fixtures/every-contract.mjs', join(root, 'packages/proto/dist/gen')],
      {
        cwd: platformDir,
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
          OTEL_SERVICE_NAME: 'every-contract',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('gRPC adapter over every contract, with tracing on', () => {
  let collector: OtlpCollector;
  beforeAll(async () => {
    collector = await startOtlpCollector();
  });
  afterAll(() => collector.close());

  it('when every RPC of every service under proto/ is called through createClient, then each answers, none shadows a grpc-js Client member, and each is traced', async () => {
    const declared = declaredMethods();
    // Guards the discovery itself: a regex that found nothing would make every check below vacuous.
    expect(declared).toContain('guilds.v1.GuildsService/GetChannel');

    const { code, stdout, stderr } = await runEveryContract(collector.url);
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;

    expect(result.failed).toEqual([]);
    expect(result.shadowed).toEqual([]);
    expect(new Set(result.services)).toEqual(new Set(declared.map((m) => m.split('/')[0])));
    expect(result.called.sort()).toEqual([...declared].sort());
    // Each call made a client span through the instrumentation (which is what recursed on a shadowed getChannel).
    await expect
      .poll(
        () =>
          new Set(
            collector.spans
              .filter((s) => s.service === 'every-contract' && s.kind === OTLP_SPAN_KIND.client && s.attributes['rpc.system'] === 'grpc')
              .map((s) => s.name.replace(/^grpc\./, '')),
          ),
        { timeout: 15_000 },
      )
      .toEqual(new Set(declared));
  });
});
