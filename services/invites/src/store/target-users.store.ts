import { sql, type Kysely } from 'kysely';
import type { ClaimedJob, TargetJob, TargetUsersStore } from '../domain/target-users.ports.js';
import type { InvitesDatabase } from './schema.js';

/** How long a worker's claim on a job lasts before another may take it over. */
const CLAIM_SECONDS = 60;
/** Ids written per statement when a job completes. */
const INSERT_BATCH = 50_000;

const JOB_COLUMNS = ['status', 'total_users', 'processed_users', 'created_at', 'completed_at', 'error_message'] as const;

export class PgTargetUsersStore implements TargetUsersStore {
  constructor(private readonly db: Kysely<InvitesDatabase>) {}

  async job(code: string): Promise<TargetJob | undefined> {
    return this.db.selectFrom('invite_target_jobs').select(JOB_COLUMNS).where('code', '=', code).executeTakeFirst();
  }

  async jobs(codes: readonly string[]): Promise<Map<string, TargetJob>> {
    if (codes.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('invite_target_jobs')
      .select(['code', ...JOB_COLUMNS])
      .where('code', 'in', [...codes])
      .execute();
    return new Map(rows.map(({ code, ...job }) => [code, job]));
  }

  async file(code: string): Promise<string[] | undefined> {
    const row = await this.db.selectFrom('invite_target_jobs').select('file').where('code', '=', code).executeTakeFirst();
    if (!row) return undefined;
    return row.file === '' ? [] : row.file.split('\n');
  }

  async replaceFile(code: string, rows: readonly string[]): Promise<boolean> {
    const result = await this.db
      .updateTable('invite_target_jobs')
      .set({
        file: rows.join('\n'),
        status: 1,
        total_users: rows.length,
        processed_users: 0,
        created_at: sql<Date>`now()`,
        completed_at: null,
        error_message: null,
        generation: sql<number>`generation + 1`,
        locked_until: null,
      })
      .where('code', '=', code)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async isTarget(code: string, userId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('invite_target_users')
      .select('user_id')
      .where('code', '=', code)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async claim(): Promise<ClaimedJob | undefined> {
    // SKIP LOCKED: replicas claiming at once each get a different job, or none, never the same one.
    const row = await sql<{ code: string; file: string; generation: number }>`
      UPDATE invite_target_jobs SET locked_until = now() + make_interval(secs => ${CLAIM_SECONDS})
      WHERE code = (
        SELECT code FROM invite_target_jobs
        WHERE status = 1 AND (locked_until IS NULL OR locked_until < now())
        ORDER BY created_at
        FOR UPDATE SKIP LOCKED
        LIMIT 1
      )
      RETURNING code, file, generation`.execute(this.db);
    const job = row.rows[0];
    if (!job) return undefined;
    return { code: job.code, generation: job.generation, rows: job.file === '' ? [] : job.file.split('\n') };
  }

  async progress(job: ClaimedJob, processed: number): Promise<void> {
    await this.db
      .updateTable('invite_target_jobs')
      .set({ processed_users: processed, locked_until: sql<Date>`now() + make_interval(secs => ${CLAIM_SECONDS})` })
      .where('code', '=', job.code)
      .where('generation', '=', job.generation)
      .execute();
  }

  async complete(job: ClaimedJob, userIds: readonly string[]): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // The job row first: an upload racing this completion waits, or this sees its new generation.
      const current = await trx
        .selectFrom('invite_target_jobs')
        .select('generation')
        .where('code', '=', job.code)
        .forUpdate()
        .executeTakeFirst();
      if (current?.generation !== job.generation) return false;
      await trx.deleteFrom('invite_target_users').where('code', '=', job.code).execute();
      for (let i = 0; i < userIds.length; i += INSERT_BATCH) {
        const batch = userIds.slice(i, i + INSERT_BATCH);
        await sql`INSERT INTO invite_target_users (code, user_id)
          SELECT ${job.code}, unnest(${batch}::bigint[]) ON CONFLICT DO NOTHING`.execute(trx);
      }
      await trx
        .updateTable('invite_target_jobs')
        .set({ status: 2, processed_users: userIds.length, completed_at: sql<Date>`now()`, locked_until: null })
        .where('code', '=', job.code)
        .execute();
      return true;
    });
  }

  async fail(job: ClaimedJob, message: string, processed: number): Promise<void> {
    await this.db
      .updateTable('invite_target_jobs')
      .set({ status: 3, error_message: message, processed_users: processed, completed_at: sql<Date>`now()`, locked_until: null })
      .where('code', '=', job.code)
      .where('generation', '=', job.generation)
      .execute();
  }
}
