/** A message a webhook posted, as stored. Lists are kept as the platform renders them. */
export interface MessageRecord {
  id: string;
  webhookId: string;
  guildId: string;
  /** Where the message is: the thread when posted into one. */
  channelId: string;
  /** The webhook's channel. */
  parentChannelId: string;
  applicationId: string | null;
  authorName: string;
  authorAvatar: string | null;
  avatarUrl: string | null;
  content: string;
  tts: boolean;
  flags: number;
  embeds: unknown[];
  attachments: AttachmentView[];
  components: unknown[];
  mentions: unknown[];
  mentionRoles: string[];
  mentionEveryone: boolean;
  poll: unknown;
  createdAt: Date;
  editedAt: Date | null;
}

export interface AttachmentView {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
  description?: string;
  width?: number;
  height?: number;
}

/**
 * An attachment's key in the object store: the end of its URL (`attachments/<channel>/<id>/<name>`,
 * whatever origin serves it). The same pattern in SQL (POSIX) and here.
 */
export const ATTACHMENT_KEY_SQL = '(attachments/[0-9]+/[0-9]+/[^/]+)$';
const ATTACHMENT_KEY = /(attachments\/[0-9]+\/[0-9]+\/[^/]+)$/;

export const attachmentKeys = (attachments: AttachmentView[]): string[] =>
  attachments.flatMap((a) => {
    const key = ATTACHMENT_KEY.exec(a.url)?.[1];
    return key ? [key] : [];
  });

/** Message flags a webhook may set. */
export const MessageFlag = {
  SUPPRESS_EMBEDS: 1 << 2,
  SUPPRESS_NOTIFICATIONS: 1 << 12,
  VOICE_MESSAGE: 1 << 13,
} as const;
export const SETTABLE_FLAGS = MessageFlag.SUPPRESS_EMBEDS | MessageFlag.SUPPRESS_NOTIFICATIONS | MessageFlag.VOICE_MESSAGE;
