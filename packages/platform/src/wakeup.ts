/**
 * A sleep that a notification can cut short. A notification that arrives while nobody sleeps is
 * remembered, so the next sleep that accepts notifications returns at once: work that came during
 * a batch is not left for the next poll.
 */
export class Wakeup {
  private notified = false;
  private closed = false;
  private sleeper: { acceptsNotify: boolean; done: () => void } | undefined;

  notify(): void {
    this.notified = true;
    if (this.sleeper?.acceptsNotify) this.sleeper.done();
  }

  /** Forgets earlier notifications: the caller is about to look for work itself. */
  clear(): void {
    this.notified = false;
  }

  /** Ends the current sleep and every later one at once (shutting down). */
  close(): void {
    this.closed = true;
    this.sleeper?.done();
  }

  sleep(ms: number, { acceptsNotify }: { acceptsNotify: boolean }): Promise<void> {
    if (this.closed || (acceptsNotify && this.notified)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.sleeper === sleeper) this.sleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      const sleeper = { acceptsNotify, done };
      this.sleeper = sleeper;
    });
  }
}
