// Loaded with `--import` (through NODE_OPTIONS) into every process the start script spawns when the
// memory benchmark runs. Does nothing until the process receives SIGUSR2; then it runs a full
// garbage collection (through the in-process inspector, so no --expose-gc is needed) and writes
// process.memoryUsage() to <BENCH_GC_DIR>/<process>-<pid>.json, so RSS is read after a GC and the
// V8 heap can be told apart from the rest. SIGUSR1 is Node's inspector signal; SIGUSR2 is unused
// by Node and by Kith.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

const dir = process.env.BENCH_GC_DIR;
const name = process.env.KITH_PROCESS_NAME;
if (dir && name) {
  let count = 0;
  process.on('SIGUSR2', async () => {
    const started = performance.now();
    const session = new Session();
    session.connect();
    try {
      // Two full collections: the first may leave finalised objects for the second.
      await session.post('HeapProfiler.collectGarbage');
      await session.post('HeapProfiler.collectGarbage');
    } finally {
      // Disconnecting from inside the inspector's own callback hangs the process; leave it first.
      setImmediate(() => session.disconnect());
    }
    const usage = process.memoryUsage();
    const file = path.join(dir, `${name}-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ count: ++count, gcMs: performance.now() - started, ...usage }));
  });
}
