import type { ColumnType } from 'kysely';

type Id = ColumnType<string, string, string>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface RelationshipsTable {
  user_id: Id;
  target_id: Id;
  type: number;
  nickname: string | null;
  is_spam_request: boolean;
  stranger_request: boolean;
  user_ignored: boolean;
  origin_application_id: string | null;
  since: Timestamp;
}

/** Kept by a trigger on `relationships`; read-only to the application. */
export interface RelationshipVersionsTable {
  user_id: Id;
  version: ColumnType<string, never, never>;
}

export interface GameRelationshipsTable {
  user_id: Id;
  target_id: Id;
  application_id: Id;
  type: number;
  dm_access_type: number;
  since: Timestamp;
}

export interface ApplicationAuthorizationsTable {
  user_id: Id;
  application_id: Id;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface FriendSuggestionsTable {
  user_id: Id;
  suggested_user_id: Id;
  reasons: ColumnType<unknown, string, string>;
  from_suggested_user_contacts: boolean;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface ContactSyncTokensTable {
  token_hash: Buffer;
  user_id: Id;
  user_ids: ColumnType<string[], string[], string[]>;
  expires_at: Timestamp;
  used_at: Date | null;
}

export interface ContactSyncsTable {
  user_id: Id;
  name: string;
  friend_sync: boolean;
  allowed_in_suggestions: number | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface ContactMatchesTable {
  user_id: Id;
  matched_user_id: Id;
}

export interface SocialDatabase {
  relationships: RelationshipsTable;
  relationship_versions: RelationshipVersionsTable;
  game_relationships: GameRelationshipsTable;
  application_authorizations: ApplicationAuthorizationsTable;
  friend_suggestions: FriendSuggestionsTable;
  contact_sync_tokens: ContactSyncTokensTable;
  contact_syncs: ContactSyncsTable;
  contact_matches: ContactMatchesTable;
}
