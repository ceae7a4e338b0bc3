import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface RunningSystem {
  /** The edge's REST base, `http://127.0.0.1:<port>/api/v9`. */
  baseUrl: string;
  /** Stops every process with SIGINT, as Ctrl-C would. */
  stop(): Promise<void>;
}

/**
 * Starts the whole system exactly as `npm start` does (scripts/start.mjs, separate processes) on
 * ports shifted by `portOffset` and databases `<dbPrefix>_<service>` (Redis keys follow the prefix),
 * with `env` on top of this process's environment.
 */
export async function startSystem(opts: { portOffset: number; dbPrefix: string; env: Record<string, string> }): Promise<RunningSystem> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, ...opts.env, KITH_PORT_OFFSET: String(opts.portOffset), DB_PREFIX: opts.dbPrefix },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`system did not start within 90 s:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Kith is up: (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`system exited (${code}) before it was up:\n${output}`));
    });
  }).catch(async (err: unknown) => {
    await stopChild(child);
    throw err;
  });
  child.stdout!.resume();
  child.stderr!.pipe(process.stderr);
  return { baseUrl, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGINT');
  });
}
