import { OverloadedError } from './errors.js';

export interface WorkQueueOptions {
  /** Jobs running at once. */
  concurrency: number;
  /** Jobs that may wait for a turn; one more is refused at once. */
  maxWaiting: number;
  /** How long a job may wait for its turn before it is refused. */
  maxWaitMs: number;
  /** Names the work in the refusal's message (logs). */
  name: string;
}

interface Waiting {
  start: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Bounds expensive work (CPU-bound jobs that run on the libuv pool, such as password hashing) so a
 * surge of it cannot starve everything else the process does: at most `concurrency` jobs run, the
 * rest wait in arrival order, and a job that finds the line full, or waits longer than
 * `maxWaitMs`, fails with `OverloadedError`: the client is told 503 and when to come back instead
 * of waiting past every deadline in front of it.
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: Waiting[] = [];
  /** A moving average of how long a job runs, for the Retry-After of a refusal. */
  private averageJobMs = 0;

  constructor(private readonly options: WorkQueueOptions) {
    if (options.concurrency < 1) throw new Error('a work queue runs at least one job at a time');
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    await this.turn();
    const started = performance.now();
    try {
      return await job();
    } finally {
      const ms = performance.now() - started;
      this.averageJobMs = this.averageJobMs === 0 ? ms : 0.8 * this.averageJobMs + 0.2 * ms;
      this.done();
    }
  }

  /** Jobs running and waiting now (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private turn(): Promise<void> | void {
    if (this.running < this.options.concurrency) {
      this.running++;
      return;
    }
    if (this.waiting.length >= this.options.maxWaiting) throw this.refusal('full');
    return new Promise<void>((resolve, reject) => {
      const entry: Waiting = {
        // The slot passes straight from the job that ends (see done): `running` stays as it is.
        start: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(entry);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(this.refusal('waited too long'));
        }, this.options.maxWaitMs),
      };
      entry.timer.unref();
      this.waiting.push(entry);
    });
  }

  private done(): void {
    const next = this.waiting.shift();
    if (next) return next.start();
    this.running--;
  }

  /** Come back once the jobs now in line would have been worked off: a second at least, the longest wait at most. */
  private refusal(why: string): OverloadedError {
    const drainMs = ((this.waiting.length + this.running) * this.averageJobMs) / this.options.concurrency;
    const seconds = Math.min(Math.ceil(this.options.maxWaitMs / 1000), Math.max(1, Math.ceil(drainMs / 1000)));
    return new OverloadedError(`${this.options.name}: ${why}`, seconds);
  }
}
