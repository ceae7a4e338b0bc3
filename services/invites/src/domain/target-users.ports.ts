/** A target users job as the platform shows it (status 0–3). */
export interface TargetJob {
  status: number;
  total_users: number;
  processed_users: number;
  created_at: Date | null;
  completed_at: Date | null;
  error_message: string | null;
}

/** A job a worker holds: the file's rows of the upload it claimed. */
export interface ClaimedJob {
  code: string;
  generation: number;
  rows: string[];
}

export const JobStatus = { UNSPECIFIED: 0, PROCESSING: 1, COMPLETED: 2, FAILED: 3 } as const;

export interface TargetUsersStore {
  job(code: string): Promise<TargetJob | undefined>;
  jobs(codes: readonly string[]): Promise<Map<string, TargetJob>>;
  /** The rows of the last upload; undefined when the invite has no file. */
  file(code: string): Promise<string[] | undefined>;
  /** A new upload: the job starts over. False when the invite has no file. */
  replaceFile(code: string, rows: readonly string[]): Promise<boolean>;
  isTarget(code: string, userId: string): Promise<boolean>;
  /** The oldest processing job no live worker holds, now held by the caller for a while. */
  claim(): Promise<ClaimedJob | undefined>;
  progress(job: ClaimedJob, processed: number): Promise<void>;
  /** The job's users replace the invite's; false when a newer upload came meanwhile. */
  complete(job: ClaimedJob, userIds: readonly string[]): Promise<boolean>;
  fail(job: ClaimedJob, message: string, processed: number): Promise<void>;
}

export function jobView(job: TargetJob): Record<string, unknown> {
  return {
    status: job.status,
    total_users: job.total_users,
    processed_users: job.processed_users,
    created_at: job.created_at ? job.created_at.toISOString() : null,
    completed_at: job.completed_at ? job.completed_at.toISOString() : null,
    error_message: job.error_message,
  };
}
