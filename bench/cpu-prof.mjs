// Loaded with `--import` (through NODE_OPTIONS, which refuses --cpu-prof) into every process the
// start script spawns when BENCH_CPU_PROF is set: samples the CPU from start to exit and writes
// <BENCH_CPU_PROF_DIR>/<process>-<pid>.cpuprofile (open it in Chrome DevTools or speedscope).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_CPU_PROF_DIR;
const name = process.env.KITH_PROCESS_NAME;
if (dir && name) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.once('exit', () => {
    // The in-process inspector answers synchronously, so this runs before the process is gone.
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(path.join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
