import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's package puts the binary; NATS_SERVER_BIN overrides it. */
const DEFAULT_BINARY = '/usr/sbin/nats-server';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * A nats-server with JetStream that a test owns: its own port and store directory, so a test can
 * kill it and bring it back (same port, same stored streams) without touching the machine's
 * shared server.
 */
export class TestNatsServer {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly storeDir: string,
    private readonly binary: string,
  ) {}

  static async start(binary = process.env.NATS_SERVER_BIN ?? DEFAULT_BINARY): Promise<TestNatsServer> {
    const server = new TestNatsServer(await freePort(), await mkdtemp(join(tmpdir(), 'kith-nats-')), binary);
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  /** Starts the server (again) on the same port and store; resolves once it accepts clients. */
  async restart(): Promise<void> {
    if (this.process) throw new Error('nats-server is already running');
    const child = spawn(this.binary, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.process = child;
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${log}`)), 10_000);
      child.once('error', (err) => (clearTimeout(timer), reject(err)));
      child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`nats-server exited (${code}):\n${log}`))));
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        // Printed after JetStream has recovered its streams from the store directory.
        if (log.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
    }).catch((err: unknown) => {
      this.process = undefined;
      child.kill('SIGKILL');
      throw err;
    });
    child.stderr!.resume();
  }

  /** SIGKILL: no shutdown, no flush, as a crash or an OOM kill would end it. */
  async kill(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = undefined;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Kills the server and deletes its store. */
  async stop(): Promise<void> {
    await this.kill();
    await rm(this.storeDir, { recursive: true, force: true });
  }
}
