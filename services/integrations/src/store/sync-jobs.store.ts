import { sql, type Kysely } from 'kysely';
import type { SyncJobsPort } from '../domain/streaming/sync.worker.js';
import type { IntegrationsDatabase } from './schema.js';

/** The sync queue: a job is held (row lock, SKIP LOCKED) while it runs, and gone once it succeeded. */
export class PgSyncJobs implements SyncJobsPort {
  constructor(private readonly db: Kysely<IntegrationsDatabase>) {}

  async runNext(run: (integrationId: string, attempts: number) => Promise<void>, retryAfterMs: (attempts: number) => number | null) {
    let failure: unknown;
    const ran = await this.db.transaction().execute(async (trx) => {
      const job = await trx
        .selectFrom('integration_sync_jobs')
        .select(['integration_id', 'attempts'])
        .where('run_after', '<=', sql<Date>`now()`)
        .orderBy('run_after')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!job) return false;
      try {
        await run(job.integration_id, job.attempts);
        await trx.deleteFrom('integration_sync_jobs').where('integration_id', '=', job.integration_id).execute();
      } catch (err) {
        const delay = retryAfterMs(job.attempts + 1);
        if (delay === null) await trx.deleteFrom('integration_sync_jobs').where('integration_id', '=', job.integration_id).execute();
        else
          await trx
            .updateTable('integration_sync_jobs')
            .set({ attempts: job.attempts + 1, run_after: sql<Date>`now() + ${`${delay} milliseconds`}::interval` })
            .where('integration_id', '=', job.integration_id)
            .execute();
        // Thrown after the commit: inside, it would roll the backoff back and the job would run again at once.
        failure = err;
      }
      return true;
    });
    if (failure !== undefined) throw failure;
    return ran;
  }
}
