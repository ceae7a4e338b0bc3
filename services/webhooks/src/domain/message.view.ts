import type { MessageRecord } from './message.types.js';

/** A timestamp as the platform writes it: ISO 8601 with microseconds and an explicit offset. */
export const platformTime = (d: Date): string => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');

/** The platform's message object for a message a webhook posted. */
export function renderMessage(m: MessageRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    type: 0,
    content: m.content,
    mentions: m.mentions,
    mention_roles: m.mentionRoles,
    attachments: m.attachments,
    embeds: m.embeds,
    timestamp: platformTime(m.createdAt),
    edited_timestamp: m.editedAt ? platformTime(m.editedAt) : null,
    flags: m.flags,
    components: m.components,
    id: m.id,
    channel_id: m.channelId,
    author: {
      id: m.webhookId,
      username: m.authorName,
      avatar: m.authorAvatar,
      discriminator: '0000',
      public_flags: 0,
      flags: 0,
      bot: true,
      global_name: null,
    },
    pinned: false,
    mention_everyone: m.mentionEveryone,
    tts: m.tts,
    webhook_id: m.webhookId,
  };
  if (m.applicationId) view.application_id = m.applicationId;
  if (m.poll) view.poll = m.poll;
  return view;
}
