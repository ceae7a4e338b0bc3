import type { ColumnType, Generated } from 'kysely';

type Id = ColumnType<string, string, string>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface ApplicationsTable {
  id: Id;
  owner_id: Id;
  name: string;
  description: Generated<string>;
  icon: string | null;
  flags: Generated<number>;
  bot_user_id: string | null;
  bot_public: Generated<boolean>;
  bot_require_code_grant: Generated<boolean>;
  redirect_uris: Generated<string[]>;
  role_connections_verification_url: string | null;
  verify_key: string;
  created_at: Generated<Date>;
}

export interface ApplicationCommandsTable {
  id: Id;
  application_id: Id;
  guild_id: string | null;
  type: number;
  name: string;
  description: string;
  options: Json<unknown[]>;
  version: Id;
}

export interface RoleConnectionMetadataTable {
  application_id: Id;
  records: Json<unknown[]>;
}

export interface OAuth2AuthorizationsTable {
  id: Id;
  user_id: Id;
  application_id: Id;
  scopes: string[];
  created_at: Generated<Date>;
}

export interface IntegrationsTable {
  id: Id;
  guild_id: string | null;
  channel_id: string | null;
  type: string;
  name: string;
  enabled: Generated<boolean>;
  account_id: string;
  account_name: string;
  application_id: string | null;
  scopes: Generated<string[]>;
  user_id: string | null;
  syncing: boolean | null;
  role_id: string | null;
  enable_emoticons: boolean | null;
  expire_behavior: number | null;
  expire_grace_period: number | null;
  synced_at: Date | null;
  subscriber_count: number | null;
  revoked: boolean | null;
  created_at: Generated<Date>;
}

export interface ConnectionsTable {
  user_id: Id;
  type: string;
  account_id: string;
  name: string;
  access_token: string | null;
  refresh_token: string | null;
  token_expires_at: Timestamp | null;
  revoked: Generated<boolean>;
  visibility: Generated<number>;
  friend_sync: Generated<boolean>;
  show_activity: Generated<boolean>;
  metadata_visibility: Generated<number>;
  created_at: Generated<Date>;
}

export interface IntegrationSubscribersTable {
  integration_id: Id;
  account_id: string;
  account_name: string;
  lapsed_at: Timestamp | null;
}

export interface IntegrationGrantsTable {
  integration_id: Id;
  user_id: Id;
  account_id: string;
  granted_at: Generated<Date>;
}

export interface ApplicationIconsTable {
  application_id: Id;
  hash: string;
  content_type: string;
  data: Buffer;
  created_at: Generated<Date>;
}

export interface IntegrationSyncJobsTable {
  integration_id: Id;
  run_after: Generated<Date>;
  attempts: Generated<number>;
}

export interface IntegrationsDatabase {
  integration_sync_jobs: IntegrationSyncJobsTable;
  applications: ApplicationsTable;
  application_icons: ApplicationIconsTable;
  application_commands: ApplicationCommandsTable;
  role_connection_metadata: RoleConnectionMetadataTable;
  oauth2_authorizations: OAuth2AuthorizationsTable;
  integrations: IntegrationsTable;
  connections: ConnectionsTable;
  integration_subscribers: IntegrationSubscribersTable;
  integration_grants: IntegrationGrantsTable;
}
