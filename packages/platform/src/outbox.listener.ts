import pg from 'pg';
import type { Logger } from './logger.js';
import { OUTBOX_CHANNEL } from './outbox.js';

export interface ListenerOptions {
  url: string;
  /** Called on every notification, and after each (re)connect: events may have come meanwhile. */
  onNotify: () => void;
  logger?: Logger;
  retryInitialMs: number;
  retryMaxMs: number;
}

/**
 * One connection of its own that LISTENs on the outbox channel. A pooled connection cannot LISTEN:
 * the pool hands it to other queries and notifications need a session that stays. When the
 * connection drops (server restart, failover, terminated backend) it reconnects and LISTENs again.
 */
export class OutboxListener {
  private client: pg.Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;

  constructor(private readonly options: ListenerOptions) {}

  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.options.url });
    client.on('notification', () => this.options.onNotify());
    // A lost connection emits 'error' then 'end'; without a listener 'error' would crash the process.
    client.on('error', (err) => this.options.logger?.warn({ err: err.message }, 'outbox listener connection error'));
    let ended = false;
    client.once('end', () => {
      ended = true;
      if (this.client !== client) return;
      this.client = undefined;
      this.retryLater();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
    } catch (err) {
      this.options.logger?.warn({ err: (err as Error).message }, 'outbox listener cannot connect');
      void client.end().catch(() => undefined);
      this.retryLater();
      return;
    }
    if (this.stopped) return void client.end().catch(() => undefined);
    // It may have ended between the LISTEN's answer and here, before 'end' could know to retry.
    if (ended) return this.retryLater();
    this.client = client;
    this.failures = 0;
    this.options.onNotify();
  }

  private retryLater(): void {
    if (this.stopped) return;
    const delay = Math.min(this.options.retryInitialMs * 2 ** this.failures, this.options.retryMaxMs);
    this.failures += 1;
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}
