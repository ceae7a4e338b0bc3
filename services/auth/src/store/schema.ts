import type { ColumnType, Generated } from 'kysely';
import type { FriendSourceFlags } from '../domain/ports.js';

/** bigint columns come back from pg as strings; snowflakes stay strings end to end. */
type Id = ColumnType<string, string | bigint, never>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface UsersTable {
  id: Id;
  username: string;
  discriminator: Generated<string>;
  global_name: string | null;
  email: string | null;
  phone: string | null;
  password_hash: string | null;
  date_of_birth: ColumnType<string | null, string | null | undefined, string | null>;
  avatar: string | null;
  bio: Generated<string>;
  locale: Generated<string>;
  theme: Generated<string>;
  flags: ColumnType<string, string | undefined, string>;
  public_flags: ColumnType<string, string | undefined, string>;
  verified: Generated<boolean>;
  bot: Generated<boolean>;
  mfa_enabled: Generated<boolean>;
  /** SMS codes count as a second factor (migration 0006); only alongside TOTP and a phone. */
  sms_mfa_enabled: Generated<boolean>;
  /** The user has at least one WebAuthn credential (migration 0007). */
  webauthn_enabled: Generated<boolean>;
  premium_type: Generated<number>;
  promotional_email_opt_in: Generated<boolean>;
  friend_source_flags: ColumnType<FriendSourceFlags, string | undefined, string>;
  /** Migration 0031: FIND_BY_PHONE (2), FIND_BY_EMAIL (4). */
  friend_discovery_flags: Generated<number>;
  created_at: Generated<Date>;
  disabled_at: Date | null;
  deleted_at: Date | null;
  suspended_at: Generated<Date | null>;
  locked_at: Generated<Date | null>;
  password_update_required: Generated<boolean>;
}

export interface ClassificationsTable {
  id: Id;
  user_id: Id;
  action_type: number;
  description: string;
  created_at: Generated<Date>;
  lifted_at: Date | null;
  appeal_id: ColumnType<string | null, string | null | undefined, string | null>;
  appeal_status: number | null;
  appeal_signal: number | null;
  appeal_input: string | null;
}

export interface SessionsTable {
  id: string;
  id_hash: string;
  user_id: Id;
  token_hash: Buffer;
  created_at: Generated<Date>;
  last_used_at: Timestamp;
  expires_at: Timestamp;
  client_os: string | null;
  client_platform: string | null;
  client_location: string | null;
  client_ip: string | null;
  revoked_at: Date | null;
}

export interface LoginSourcesTable {
  user_id: Id;
  source: string;
  last_seen_at: Timestamp;
}

export interface AuthDatabase {
  users: UsersTable;
  sessions: SessionsTable;
  user_login_sources: LoginSourcesTable;
  push_devices: PushDevicesTable;
  classifications: ClassificationsTable;
}

export interface PushDevicesTable {
  provider: string;
  token: string;
  session_id: string;
  // Updatable, unlike other tables' user ids: a device that signs in to another account moves to it.
  user_id: ColumnType<string, string | bigint, string | bigint>;
  bundle_id: string | null;
  bypass_server_throttling: Generated<boolean>;
  created_at: Generated<Date>;
}
