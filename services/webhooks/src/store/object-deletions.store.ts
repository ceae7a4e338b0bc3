import { sql } from '@kith/platform';
import type { Kysely, RawBuilder, Transaction } from 'kysely';
import type { DeletionQueue, SweepOutcome } from '../domain/ports.js';
import { ATTACHMENT_KEY_SQL } from '../domain/message.types.js';
import type { WebhooksDatabase } from './schema.js';

type Tx = Transaction<WebhooksDatabase>;

/** A retry waits 5 s, doubling with each failure, 10 minutes at most. */
const RETRY = sql<Date>`now() + make_interval(secs => least(600, 5 * power(2, attempts)))`;

/** Queues the keys of files to remove, in the caller's transaction (the deletion that frees them). */
export async function queueObjectDeletions(trx: Tx, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await trx
    .insertInto('object_deletions')
    .values(keys.map((key) => ({ key })))
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

/**
 * Deletes the messages `where` selects and queues their files' keys, in one statement of the
 * caller's transaction: however many messages a channel or guild had, none of them passes
 * through this process.
 */
export async function deleteMessagesWithFiles(trx: Tx, where: RawBuilder<unknown>): Promise<void> {
  await sql`WITH gone AS (DELETE FROM messages WHERE ${where} RETURNING attachments),
    keys AS (SELECT substring(a->>'url' from ${ATTACHMENT_KEY_SQL}) AS key FROM gone, jsonb_array_elements(gone.attachments) AS a)
    INSERT INTO object_deletions (key) SELECT DISTINCT key FROM keys WHERE key IS NOT NULL
    ON CONFLICT (key) DO NOTHING`.execute(trx);
}

/** The queue of files to remove, worked by every replica at once without two taking one key. */
export class PgDeletionQueue implements DeletionQueue {
  constructor(private readonly db: Kysely<WebhooksDatabase>) {}

  sweep(limit: number, remove: (keys: string[]) => Promise<void>): Promise<SweepOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('object_deletions')
        .select('key')
        .where('not_before', '<=', sql<Date>`now()`)
        .orderBy('not_before')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      const keys = rows.map((r) => r.key);
      if (keys.length === 0) return { swept: 0 };
      try {
        await remove(keys);
      } catch (error) {
        // The rows stay, due again later; the lock ends with this transaction.
        await trx
          .updateTable('object_deletions')
          .set({ attempts: sql<number>`attempts + 1`, not_before: RETRY })
          .where('key', 'in', keys)
          .execute();
        return { swept: 0, failed: keys.length, error };
      }
      await trx.deleteFrom('object_deletions').where('key', 'in', keys).execute();
      return { swept: keys.length };
    });
  }

  /** Queues keys on their own (files no message holds, which the store would not remove at once). */
  async enqueue(keys: string[]): Promise<void> {
    await this.db.transaction().execute((trx) => queueObjectDeletions(trx, keys));
  }
}
