import type { Logger } from '@kith/platform';
import type { UserDirectory } from './ports.js';
import { badRowLines, listed } from './target-users.file.js';
import type { ClaimedJob, TargetUsersStore } from './target-users.ports.js';

/** Ids checked with auth at once (its existence check's page), and how many such checks run together. */
const LOOKUP_PAGE = 10_000;
const LOOKUPS_AT_ONCE = 2;

export interface WorkerOptions {
  /** How long an idle worker waits before looking for a job again (an upload here wakes it at once). */
  idleMs: number;
  logger: Logger;
}

/**
 * Processes target users files: claims the oldest waiting job (several replicas each claim a
 * different one), checks every row is a known user, and makes the file's users the invite's, or
 * records why not. A claim that lapses (this process died) is taken over by another worker.
 */
export class TargetUsersWorker {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly store: TargetUsersStore,
    private readonly users: UserDirectory,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** A job was queued here: look now rather than at the next idle tick. */
  kick(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.runOnce();
      } catch (err) {
        this.options.logger.error({ err }, 'target users job failed to run');
      }
      if (!worked && this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.options.idleMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** Claims and processes one job; false when there was none. */
  async runOnce(): Promise<boolean> {
    const job = await this.store.claim();
    if (!job) return false;
    await this.process(job);
    return true;
  }

  private async process(job: ClaimedJob): Promise<void> {
    const bad = badRowLines(job.rows);
    if (bad.length > 0) return this.store.fail(job, listed('Invalid user IDs on lines', bad), 0);
    const ids = [...new Set(job.rows)];
    const unknown: string[] = [];
    let processed = 0;
    for (let i = 0; i < ids.length; i += LOOKUP_PAGE * LOOKUPS_AT_ONCE) {
      const pages: string[][] = [];
      for (let j = i; j < Math.min(ids.length, i + LOOKUP_PAGE * LOOKUPS_AT_ONCE); j += LOOKUP_PAGE)
        pages.push(ids.slice(j, j + LOOKUP_PAGE));
      for (const missing of await Promise.all(pages.map((page) => this.users.unknownIds(page)))) unknown.push(...missing);
      processed += pages.reduce((n, p) => n + p.length, 0);
      await this.store.progress(job, processed);
    }
    if (unknown.length > 0) return this.store.fail(job, listed('Unknown users', unknown), processed);
    await this.store.complete(job, ids);
  }
}
