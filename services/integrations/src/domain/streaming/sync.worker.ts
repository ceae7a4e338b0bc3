import { Wakeup, type Logger } from '@kith/platform';

/** The queue of requested syncs (see the store): runs the next due one, if any. */
export interface SyncJobsPort {
  /**
   * Takes the next due job no other replica holds and runs it; true when one ran (or failed). A
   * failure is retried after `retryAfterMs(attempts)`, or dropped when that says null.
   */
  runNext(
    run: (integrationId: string, attempts: number) => Promise<void>,
    retryAfterMs: (attempts: number) => number | null,
  ): Promise<boolean>;
}

export interface SyncRunner {
  runSync(integrationId: string, lastAttempt: boolean): Promise<void>;
}

/** Tries of one sync before it is given up (the integration then shows `syncing: false` again). */
export const MAX_ATTEMPTS = 5;
const backoff = (attempts: number): number | null => (attempts >= MAX_ATTEMPTS ? null : 1000 * 2 ** attempts);

/**
 * Runs requested syncs in the background of every replica: woken at once by a request made here,
 * and every `pollMs` for those made elsewhere or due for a retry.
 */
export class SyncWorker {
  private readonly wakeup = new Wakeup();
  private loop: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly jobs: SyncJobsPort,
    private readonly runner: SyncRunner,
    private readonly logger: Logger,
    private readonly pollMs = 1000,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** A sync was requested in this replica: look now rather than at the next poll. */
  notify(): void {
    this.wakeup.notify();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeup.close();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.wakeup.clear();
      let ran = false;
      try {
        ran = await this.jobs.runNext((id, attempts) => this.runner.runSync(id, attempts + 1 >= MAX_ATTEMPTS), backoff);
      } catch (err) {
        this.logger.warn({ err }, 'an integration sync failed; it is tried again later');
        ran = true;
      }
      // Until the poll interval passes or a request here arrives (one that came during the last look counts).
      if (!ran) await this.wakeup.sleep(this.pollMs, { acceptsNotify: true });
    }
  }
}
