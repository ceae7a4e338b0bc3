import { sql, type QueryExecutorProvider } from 'kysely';
import type { EventEnvelope } from './events.js';

/** An outbox row waiting to be published. */
export interface PendingEvent {
  id: string;
  subject: string;
  envelope: EventEnvelope;
  /** Trace context captured when the event was written. */
  headers: Record<string, string>;
}

/**
 * An arbitrary constant that names "the outbox relay" among this database's advisory locks (next
 * to the migration lock). Each service has its own database, so each service has its own relay lock.
 */
export const OUTBOX_RELAY_LOCK_KEY = 7_340_418;

/**
 * Takes the relay lock for the rest of the transaction, without waiting. Only its holder publishes,
 * so two replicas never interleave batches and the stream receives events in outbox order.
 */
export async function tryRelayLock(trx: QueryExecutorProvider): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${OUTBOX_RELAY_LOCK_KEY}) AS locked`.execute(trx);
  return rows[0]?.locked === true;
}

export async function selectPending(trx: QueryExecutorProvider, limit: number): Promise<PendingEvent[]> {
  const { rows } = await sql<PendingEvent>`
    SELECT id, subject, envelope, headers FROM outbox WHERE sent_at IS NULL ORDER BY seq LIMIT ${limit}`.execute(trx);
  return rows;
}

export async function markSent(trx: QueryExecutorProvider, ids: string[]): Promise<void> {
  await sql`UPDATE outbox SET sent_at = now() WHERE id = ANY(${ids}::bigint[])`.execute(trx);
}

/**
 * Deletes at most `limit` rows sent more than `olderThanMs` ago; returns how many. Rows another
 * pruning replica holds are skipped rather than waited for.
 */
export async function pruneSent(db: QueryExecutorProvider, olderThanMs: number, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM outbox WHERE id IN (
      SELECT id FROM outbox
      WHERE sent_at IS NOT NULL AND sent_at < now() - make_interval(secs => ${olderThanMs / 1000})
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** How many events wait to be published: for readiness checks and tests. */
export async function countPending(db: QueryExecutorProvider): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL`.execute(db);
  return rows[0]?.n ?? 0;
}
