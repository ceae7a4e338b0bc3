import { z } from 'zod';
import { ApiError, lengthString, snowflakeField } from '@kith/platform';
import { SETTABLE_FLAGS } from './message.types.js';

const text = (max: number) => z.string().max(max);
const urlText = z.string().max(2048);

/**
 * An embed as a webhook may send it. What clients may not set (type, provider, video, image and
 * thumbnail sizes and proxy URLs) is dropped: the platform ignores it rather than refusing it.
 */
const embedSchema = z.object({
  title: text(256).nullish(),
  description: text(4096).nullish(),
  url: urlText.nullish(),
  timestamp: z.iso.datetime({ offset: true }).nullish(),
  color: z.number().int().min(0).max(0xffffff).nullish(),
  footer: z.object({ text: text(2048), icon_url: urlText.nullish() }).nullish(),
  image: z.object({ url: urlText }).nullish(),
  thumbnail: z.object({ url: urlText }).nullish(),
  author: z.object({ name: text(256), url: urlText.nullish(), icon_url: urlText.nullish() }).nullish(),
  fields: z
    .array(z.object({ name: lengthString(1, 256), value: lengthString(1, 1024), inline: z.boolean().nullish() }))
    .max(25)
    .nullish(),
});
export type EmbedInput = z.output<typeof embedSchema>;

const allowedMentionsSchema = z.object({
  parse: z.array(z.enum(['users', 'roles', 'everyone'])).nullish(),
  users: z.array(snowflakeField).max(100).nullish(),
  roles: z.array(snowflakeField).max(100).nullish(),
  replied_user: z.boolean().nullish(),
});
export type AllowedMentions = z.output<typeof allowedMentionsSchema>;

/** Components are kept as sent (their shapes are the clients'); only their number and kind are checked. */
const componentSchema = z.looseObject({ type: z.number().int().min(1).max(40) });

const attachmentRefSchema = z.object({
  id: z.union([z.string().max(32), z.number().int().nonnegative()]).transform(String),
  filename: text(1024).nullish(),
  description: text(1024).nullish(),
});
export type AttachmentRef = z.output<typeof attachmentRefSchema>;

const pollMediaSchema = z.object({ text: text(300).nullish(), emoji: z.looseObject({}).nullish() });
const pollSchema = z.object({
  question: z.object({ text: lengthString(1, 300) }),
  answers: z
    .array(z.object({ poll_media: pollMediaSchema }))
    .min(1)
    .max(10),
  duration: z.number().int().min(1).max(768).nullish(),
  allow_multiselect: z.boolean().nullish(),
  layout_type: z.literal(1).nullish(),
});
export type PollInput = z.output<typeof pollSchema>;

const flagsField = z
  .number()
  .int()
  .min(0)
  .refine((f) => (f & ~SETTABLE_FLAGS) === 0, { params: { code: 'MESSAGE_FLAGS_INVALID', message: 'Invalid flags.' } });

const messageFields = {
  content: text(2000).nullish(),
  tts: z.boolean().nullish(),
  embeds: z.array(embedSchema).max(10).nullish(),
  allowed_mentions: allowedMentionsSchema.nullish(),
  components: z.array(componentSchema).max(40).nullish(),
  flags: flagsField.nullish(),
  attachments: z.array(attachmentRefSchema).max(10).nullish(),
};

/** Execute Webhook's JSON (or `payload_json`). */
export const executeSchema = z.object({
  ...messageFields,
  username: lengthString(1, 80).nullish(),
  avatar_url: urlText.nullish(),
  thread_name: lengthString(1, 100).nullish(),
  applied_tags: z.array(snowflakeField).max(5).nullish(),
  poll: pollSchema.nullish(),
});
export type ExecuteInput = z.output<typeof executeSchema>;

/** Edit Webhook Message's JSON (or `payload_json`). */
export const editSchema = z.object(messageFields);
export type EditInput = z.output<typeof editSchema>;

/** The characters that count towards the 6000 of a message's embeds. */
function embedLength(e: EmbedInput): number {
  let n = (e.title?.length ?? 0) + (e.description?.length ?? 0) + (e.footer?.text.length ?? 0) + (e.author?.name.length ?? 0);
  for (const f of e.fields ?? []) n += f.name.length + f.value.length;
  return n;
}

export const MAX_EMBED_TOTAL = 6000;

/** The platform's check over all of a message's embeds together. */
export function checkEmbedTotal(embeds: readonly EmbedInput[] | null | undefined): void {
  if (!embeds) return;
  const total = embeds.reduce((sum, e) => sum + embedLength(e), 0);
  if (total > MAX_EMBED_TOTAL)
    throw ApiError.form({ embeds: { code: 'MAX_EMBED_SIZE_EXCEEDED', message: `Embed size exceeds maximum size of ${MAX_EMBED_TOTAL}` } });
}

/** An embed as the platform renders it: always `rich`, only the fields that were given. */
export function renderEmbed(e: EmbedInput): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'rich' };
  if (e.title != null) out.title = e.title;
  if (e.description != null) out.description = e.description;
  if (e.url != null) out.url = e.url;
  if (e.timestamp != null) out.timestamp = new Date(e.timestamp).toISOString().replace('Z', '+00:00');
  if (e.color != null) out.color = e.color;
  if (e.footer) out.footer = { text: e.footer.text, ...(e.footer.icon_url ? { icon_url: e.footer.icon_url } : {}) };
  if (e.image) out.image = { url: e.image.url };
  if (e.thumbnail) out.thumbnail = { url: e.thumbnail.url };
  if (e.author)
    out.author = {
      name: e.author.name,
      ...(e.author.url ? { url: e.author.url } : {}),
      ...(e.author.icon_url ? { icon_url: e.author.icon_url } : {}),
    };
  if (e.fields) out.fields = e.fields.map((f) => ({ name: f.name, value: f.value, inline: f.inline ?? false }));
  return out;
}
