import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { Kysely } from 'kysely';
import { NatsError, type JetStreamClient, type NatsConnection } from 'nats';
import pg from 'pg';
import { databasePool } from './db.js';
import { ensureEventStream, type EventStreamOptions } from './event-stream.js';
import type { Logger } from './logger.js';
import { OutboxListener } from './outbox.listener.js';
import { publishInOrder } from './outbox.publish.js';
import { beginRelayBatch, markSentAndCommit, pruneSent } from './outbox.store.js';
import { Wakeup } from './wakeup.js';

export interface OutboxRelayOptions<DB> {
  /** The service's database, whose `outbox` table the relay empties. */
  db: Kysely<DB>;
  /**
   * The same database's URL: the relay holds one connection of its own to LISTEN on (and, when `db`
   * was not opened by `createDatabase`, a small pool of its own for its batches).
   */
  databaseUrl: string;
  nats: NatsConnection;
  logger?: Logger;
  /** Events published per transaction. */
  batchSize?: number;
  /** How often to look for events when no notification came (a lost NOTIFY, another replica's lock). */
  pollIntervalMs?: number;
  /** First retry delay after a failure; doubles per failure up to `backoffMaxMs`. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** How long to wait for JetStream to acknowledge a publish. */
  publishTimeoutMs?: number;
  /** Sent rows older than this are deleted. */
  pruneAfterMs?: number;
  pruneIntervalMs?: number;
  /** Rows deleted per statement, so pruning never holds many locks or a long transaction. */
  pruneBatchSize?: number;
  /** The EVENTS stream is created (or updated) with these options before the first publish. */
  stream?: EventStreamOptions;
}

export interface RelayStats {
  /** Events the stream stored from this relay. */
  published: number;
  /** Events this relay republished that the stream already had (dropped by `Nats-Msg-Id`). */
  duplicates: number;
  /** Batches that failed (NATS or the database unavailable) and were rolled back. */
  failures: number;
  /** Sent rows deleted. */
  pruned: number;
}

type BatchOutcome = 'standby' | 'idle' | 'drained' | 'full';

/**
 * Publishes a service's outbox to JetStream, in order, once. Every replica runs one; the one that
 * holds the relay lock for a transaction publishes that transaction's batch and the others stand
 * by. A batch is marked sent in the same transaction only after JetStream acknowledged all of it;
 * on any failure it rolls back and is retried whole, after a growing pause. A relay that dies
 * between publishing and committing leaves its rows pending: the next batch republishes them and
 * the stream drops the copies by `Nats-Msg-Id`.
 */
export class OutboxRelay<DB> {
  readonly stats: RelayStats = { published: 0, duplicates: 0, failures: 0, pruned: 0 };
  private readonly js: JetStreamClient;
  private readonly wakeup = new Wakeup();
  private readonly listener: OutboxListener;
  /** Batches need a raw client: each sends several statements per round trip. */
  private readonly pool: pg.Pool;
  private readonly ownPool: boolean;
  private readonly settings: Required<Omit<OutboxRelayOptions<DB>, 'db' | 'databaseUrl' | 'nats' | 'logger' | 'stream'>>;
  private running: Promise<void> | undefined;
  private stopping = false;
  private streamReady = false;
  private failuresInARow = 0;
  private nextPruneAt = 0;

  constructor(private readonly options: OutboxRelayOptions<DB>) {
    this.settings = {
      batchSize: options.batchSize ?? 100,
      pollIntervalMs: options.pollIntervalMs ?? 250,
      backoffInitialMs: options.backoffInitialMs ?? 100,
      backoffMaxMs: options.backoffMaxMs ?? 5_000,
      publishTimeoutMs: options.publishTimeoutMs ?? 5_000,
      pruneAfterMs: options.pruneAfterMs ?? 3_600_000,
      pruneIntervalMs: options.pruneIntervalMs ?? 60_000,
      pruneBatchSize: options.pruneBatchSize ?? 1_000,
    };
    this.js = options.nats.jetstream();
    const shared = databasePool(options.db);
    this.ownPool = !shared;
    this.pool = shared ?? relayPool(options.databaseUrl, options.logger);
    this.listener = new OutboxListener({
      url: options.databaseUrl,
      onNotify: () => this.wakeup.notify(),
      logger: options.logger,
      retryInitialMs: this.settings.backoffInitialMs,
      retryMaxMs: this.settings.backoffMaxMs,
    });
  }

  start(): void {
    if (this.running) return;
    // The relay's own statements (a poll every pollIntervalMs whether or not anything is pending,
    // batches, pruning, LISTEN) belong to no request: they stay out of traces. Each event's publish
    // is still a span, in the trace of the request that wrote it (see publishInOrder).
    context.with(suppressTracing(context.active()), () => {
      this.listener.start();
      this.running = this.loop();
    });
  }

  /** Stops after the batch in flight, if any, has been committed or rolled back. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeup.close();
    await this.running;
    await this.listener.stop();
    if (this.ownPool) await this.pool.end();
  }

  /** Deletes sent rows older than `pruneAfterMs`, a bounded batch at a time; returns how many. */
  prune(): Promise<number> {
    return this.pruneWhile(() => true);
  }

  private async pruneWhile(goOn: () => boolean): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await pruneSent(this.options.db, this.settings.pruneAfterMs, this.settings.pruneBatchSize);
      total += deleted;
      this.stats.pruned += deleted;
      if (deleted < this.settings.pruneBatchSize || !goOn()) return total;
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const outcome = await this.attempt();
      if (outcome === 'full') continue;
      if (outcome === 'failed') {
        await this.wakeup.sleep(this.backoffDelay(), { acceptsNotify: false });
        continue;
      }
      await this.pruneWhenDue();
      // Only the lock holder is woken by notifications; the others just poll, to take over
      // within a poll interval should it die, without racing it for every commit.
      await this.wakeup.sleep(this.settings.pollIntervalMs, { acceptsNotify: outcome !== 'standby' });
    }
  }

  private async attempt(): Promise<BatchOutcome | 'failed'> {
    try {
      const outcome = await this.relayBatch();
      if (this.failuresInARow > 0) this.options.logger?.info({ failures: this.failuresInARow }, 'outbox relay recovered');
      this.failuresInARow = 0;
      return outcome;
    } catch (err) {
      this.stats.failures += 1;
      this.failuresInARow += 1;
      // A stream deleted or never created answers "no responders": make sure of it next time.
      this.streamReady = false;
      this.options.logger?.warn({ err, failures: this.failuresInARow }, 'outbox relay batch failed; retrying');
      return 'failed';
    }
  }

  /** Two round trips whatever the outcome: begin, lock and read; then mark sent and commit (or roll back). */
  private async relayBatch(): Promise<BatchOutcome> {
    this.wakeup.clear();
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      return await this.relayBatchOn(client);
    } catch (err) {
      // The transaction may still be open, or aborted. A connection that cannot even roll back is
      // broken: handing it back with the error makes the pool discard it.
      await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  private async relayBatchOn(client: pg.PoolClient): Promise<BatchOutcome> {
    const batch = await beginRelayBatch(client, this.settings.batchSize);
    if (!batch.locked || batch.events.length === 0) {
      await client.query('ROLLBACK');
      return batch.locked ? 'idle' : 'standby';
    }
    const pending = batch.events;
    await this.ensureStream();
    const result = await publishInOrder(this.js, pending, this.settings.publishTimeoutMs);
    this.stats.published += result.stored;
    this.stats.duplicates += result.duplicates;
    await markSentAndCommit(
      client,
      pending.map((p) => p.id),
    );
    return pending.length === this.settings.batchSize ? 'full' : 'drained';
  }

  private async ensureStream(): Promise<void> {
    if (this.streamReady) return;
    try {
      await ensureEventStream(this.options.nats, { requestTimeoutMs: this.settings.publishTimeoutMs, ...this.options.stream });
    } catch (err) {
      // JetStream answered but refused (a stream made by hand with a storage type that cannot be
      // changed, say): a stream that exists still takes the events, so this must not stop them.
      if (!(err instanceof NatsError) || !err.api_error) throw err;
      this.options.logger?.error({ err }, 'EVENTS stream configuration refused; publishing to the stream as it is');
    }
    this.streamReady = true;
  }

  private async pruneWhenDue(): Promise<void> {
    if (Date.now() < this.nextPruneAt) return;
    this.nextPruneAt = Date.now() + this.settings.pruneIntervalMs;
    try {
      // Shutting down does not wait for a large backlog: the next start prunes the rest.
      await this.pruneWhile(() => !this.stopping);
    } catch (err) {
      this.options.logger?.warn({ err }, 'outbox prune failed');
    }
  }

  private backoffDelay(): number {
    const exponential = this.settings.backoffInitialMs * 2 ** Math.min(this.failuresInARow - 1, 30);
    // Jitter keeps replicas that failed together from retrying in lockstep.
    return Math.min(exponential, this.settings.backoffMaxMs) * (0.75 + Math.random() * 0.25);
  }
}

/** A pool of one connection for a relay whose database was not opened by `createDatabase`. */
function relayPool(url: string, logger: Logger | undefined): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 30_000 });
  pool.on('error', (err) => logger?.warn({ err: err.message }, 'outbox relay idle connection lost'));
  pool.on('connect', (client) => client.on('error', (err) => logger?.warn({ err: err.message }, 'outbox relay connection lost')));
  return pool;
}
