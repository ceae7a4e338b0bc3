import type { ColumnType, Generated } from 'kysely';

type Id = ColumnType<string, string, string>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** jsonb: read parsed, written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export interface WebhooksTable {
  id: Id;
  type: number;
  guild_id: Id;
  channel_id: Id;
  user_id: string | null;
  name: string;
  avatar: string | null;
  application_id: string | null;
  application_user_id: ColumnType<string | null, string | null | undefined, string | null>;
  token_digest: Buffer;
  token_sealed: Buffer;
  source_guild: Json<unknown> | null;
  source_channel: Json<unknown> | null;
  created_at: Generated<Date>;
}

export interface AvatarsTable {
  hash: string;
  content_type: string;
  data: Buffer;
}

export interface MessagesTable {
  id: Id;
  webhook_id: Id;
  guild_id: Id;
  channel_id: Id;
  parent_channel_id: Id;
  application_id: string | null;
  author_name: string;
  author_avatar: string | null;
  avatar_url: string | null;
  content: string;
  tts: boolean;
  flags: number;
  embeds: Json<unknown[]>;
  attachments: Json<unknown[]>;
  components: Json<unknown[]>;
  mentions: Json<unknown[]>;
  mention_roles: Json<string[]>;
  mention_everyone: boolean;
  poll: Json<unknown> | null;
  created_at: Timestamp;
  edited_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface ObjectDeletionsTable {
  key: string;
  not_before: ColumnType<Date, Date | string | undefined, Date | string>;
  attempts: ColumnType<number, number | undefined, number>;
}

export interface WebhooksDatabase {
  webhooks: WebhooksTable;
  avatars: AvatarsTable;
  messages: MessagesTable;
  object_deletions: ObjectDeletionsTable;
}
