import { sql, type QueryExecutorProvider } from 'kysely';

/** An outbox row waiting to be published. */
export interface PendingEvent {
  id: string;
  subject: string;
  /** The envelope's JSON text as stored: published as it is, never parsed and re-serialised. */
  envelope: string;
  /** Trace context captured when the event was written. */
  headers: Record<string, string>;
}

/**
 * An arbitrary constant that names "the outbox relay" among this database's advisory locks (next
 * to the migration lock). Each service has its own database, so each service has its own relay lock.
 */
export const OUTBOX_RELAY_LOCK_KEY = 7_340_418;

/** What the relay's connection must do: run SQL text (node-postgres's `ClientBase.query`). */
export interface RelaySession {
  query(text: string): Promise<unknown>;
}

/** 'standby': another session holds the relay lock. Otherwise the batch to publish (maybe none). */
export type RelayBatchStart = { locked: false } | { locked: true; events: PendingEvent[] };

interface PendingRow {
  locked: boolean;
  id: string | null;
  subject: string;
  envelope: string;
  headers: Record<string, string>;
}

/**
 * Opens the relay's transaction, takes the relay lock without waiting and, only if it got it,
 * reads the oldest `limit` pending events: one round trip. Only the lock holder publishes, so two
 * replicas never interleave batches and the stream receives events in outbox order. The text has
 * no parameters, so node-postgres sends it with the simple query protocol, which runs several
 * statements and answers each. The lateral read is gated by the lock (a one-time filter): a
 * replica on standby reads no row. The caller ends the transaction: `markSentAndCommit` or ROLLBACK.
 *
 * The read must walk the pending index in order. The planner otherwise picks a bitmap scan, which
 * never marks the index entries of rows already sent as dead: the index then keeps every row sent
 * since the last VACUUM and each read visits all of them and their heap pages (2.9 ms a read after
 * 6,000 events). A plain index scan marks them, and the index drops them before it would grow.
 */
export async function beginRelayBatch(session: RelaySession, limit: number): Promise<RelayBatchStart> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`bad outbox batch size ${limit}`);
  const results = (await session.query(`BEGIN;
    SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off;
    WITH relay_lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(${OUTBOX_RELAY_LOCK_KEY}) AS locked)
    SELECT relay_lock.locked, pending.id, pending.subject, pending.envelope, pending.headers
    FROM relay_lock LEFT JOIN LATERAL (
      SELECT seq, id, subject, envelope::text AS envelope, headers FROM outbox
      WHERE relay_lock.locked AND sent_at IS NULL ORDER BY seq LIMIT ${limit}
    ) AS pending ON true
    ORDER BY pending.seq`)) as { rows: PendingRow[] }[];
  const rows = results[results.length - 1]!.rows;
  if (rows[0]?.locked !== true) return { locked: false };
  const events = rows
    .filter((row): row is PendingRow & { id: string } => row.id !== null)
    .map(({ id, subject, envelope, headers }) => ({ id, subject, envelope, headers }));
  return { locked: true, events };
}

/** A bigint as node-postgres returns it: only digits, so it can be written into SQL text as is. */
const BIGINT_TEXT = /^-?\d{1,19}$/;

/**
 * Marks the batch sent and commits the relay's transaction: one round trip. The ids are bigints
 * read from the outbox itself, checked to be digits and inlined, which keeps the simple protocol
 * (several statements, no parameters). Should the UPDATE fail, the COMMIT after it does not run.
 */
export async function markSentAndCommit(session: RelaySession, ids: string[]): Promise<void> {
  const bad = ids.find((id) => !BIGINT_TEXT.test(id));
  if (bad !== undefined) throw new Error(`bad outbox id ${JSON.stringify(bad)}`);
  await session.query(`UPDATE outbox SET sent_at = now() WHERE id = ANY('{${ids.join(',')}}'::bigint[]); COMMIT`);
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
