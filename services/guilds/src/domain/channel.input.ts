/** What the channel endpoints take, decoded and validated (http/channels.schemas.ts). */

export interface OverwriteInput {
  id: string;
  type: number;
  allow?: bigint | null;
  deny?: bigint | null;
}

interface ChannelFields {
  topic?: string | null;
  nsfw?: boolean | null;
  bitrate?: number | null;
  user_limit?: number | null;
  rate_limit_per_user?: number | null;
  position?: number | null;
  permission_overwrites?: OverwriteInput[] | null;
  parent_id?: string | null;
  default_auto_archive_duration?: number | null;
}

export interface CreateChannelInput extends ChannelFields {
  name: string;
  type?: number | null;
}

/** PATCH /channels/{id}: guild channel fields, thread fields and a group DM's name. */
export interface ModifyChannelInput extends ChannelFields {
  name?: string;
  archived?: boolean;
  locked?: boolean;
  auto_archive_duration?: number;
}

export interface PositionInput {
  id: string;
  position?: number | null;
  parent_id?: string | null;
  lock_permissions?: boolean | null;
}

export interface CreateThreadInput {
  name: string;
  type?: number | null;
  auto_archive_duration?: number | null;
  invitable?: boolean | null;
  rate_limit_per_user?: number | null;
  message?: { content: string } | null;
}

export interface OpenPrivateInput {
  recipient_id?: string | null;
  recipients?: string[] | null;
}
