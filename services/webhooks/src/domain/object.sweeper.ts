import type { Logger } from '@kith/platform';
import type { DeletionQueue, ObjectStore } from './ports.js';

export interface SweeperOptions {
  /** How often the queue is looked at without being woken (other replicas' deletions, retries). */
  intervalMs: number;
  batch: number;
}

/**
 * Removes queued files from the object store: woken when this process queues some, and on an
 * interval for what others queued or what failed before. One sweep at a time per process; replicas
 * share the queue without taking the same keys (SKIP LOCKED).
 */
export class ObjectSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly queue: DeletionQueue,
    private readonly objects: Pick<ObjectStore, 'delete'>,
    private readonly logger: Logger,
    private readonly options: SweeperOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Something was queued: sweep now (or right after the sweep under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Sweeps until the queue has nothing due or the store fails; answers how many files went. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const outcome = await this.queue.sweep(this.options.batch, (keys) => this.objects.delete(keys));
      total += outcome.swept;
      if (outcome.failed) {
        this.logger.warn({ err: outcome.error, files: outcome.failed }, 'attachment files not removed yet; retried later');
        return total;
      }
      if (outcome.swept < this.options.batch) return total;
    }
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), ms);
    this.timer.unref();
  }

  private run(): void {
    if (this.stopped || this.running) return;
    this.again = false;
    this.running = this.sweep()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.warn({ err }, 'attachment sweep failed; retried later'))
      .finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.again ? 0 : this.options.intervalMs);
      });
  }
}
