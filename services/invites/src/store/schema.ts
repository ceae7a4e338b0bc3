import type { ColumnType, Generated } from 'kysely';

type Id = ColumnType<string, string, string>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface InvitesTable {
  code: string;
  type: number;
  guild_id: Id | null;
  channel_id: Id | null;
  inviter_id: Id;
  max_age: number;
  max_uses: number;
  uses: Generated<number>;
  pending: Generated<number>;
  temporary: Generated<boolean>;
  flags: Generated<number>;
  target_type: number | null;
  target_user_id: Id | null;
  target_application_id: Id | null;
  role_ids: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Generated<Date>;
  expires_at: Timestamp | null;
  deleted_at: Timestamp | null;
  targeted: Generated<boolean>;
}

export interface ApplicationsTable {
  id: Id;
  name: string;
  flags: ColumnType<string, string | number, string | number>;
}

export interface TargetJobsTable {
  code: string;
  status: Generated<number>;
  file: string;
  total_users: Generated<number>;
  processed_users: Generated<number>;
  created_at: Generated<Date>;
  completed_at: Timestamp | null;
  error_message: string | null;
  generation: Generated<number>;
  locked_until: Timestamp | null;
}

export interface TargetUsersTable {
  code: string;
  user_id: Id;
}

export interface UseReservationsTable {
  id: string;
  code: string;
  user_id: Id;
  expires_at: Timestamp;
}

export interface InvitesDatabase {
  invites: InvitesTable;
  applications: ApplicationsTable;
  invite_target_jobs: TargetJobsTable;
  invite_target_users: TargetUsersTable;
  invite_use_reservations: UseReservationsTable;
}
