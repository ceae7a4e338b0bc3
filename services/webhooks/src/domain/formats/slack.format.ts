import { z } from 'zod';
import type { EmbedInput, ExecuteInput } from '../message.input.js';
import { clip } from './github.format.js';

/**
 * The chat tool's incoming-webhook format as the platform takes it: `text`, `username`,
 * `icon_url` and `attachments` (legacy message attachments) become content, overrides and embeds;
 * `channel`, `icon_emoji`, `mrkdwn`, `mrkdwn_in`, `blocks` and the rest are ignored.
 */
const field = z.looseObject({
  title: z.string().nullish(),
  name: z.string().nullish(),
  value: z.string().nullish(),
  short: z.boolean().nullish(),
  inline: z.boolean().nullish(),
});
const attachment = z.looseObject({
  fallback: z.string().nullish(),
  color: z.string().max(32).nullish(),
  pretext: z.string().nullish(),
  author_name: z.string().nullish(),
  author_link: z.string().max(2048).nullish(),
  author_icon: z.string().max(2048).nullish(),
  title: z.string().nullish(),
  title_link: z.string().max(2048).nullish(),
  text: z.string().nullish(),
  fields: z.array(field).max(25).nullish(),
  image_url: z.string().max(2048).nullish(),
  thumb_url: z.string().max(2048).nullish(),
  footer: z.string().nullish(),
  footer_icon: z.string().max(2048).nullish(),
  ts: z.union([z.number(), z.string()]).nullish(),
});
export const slackSchema = z.object({
  text: z.string().max(2000).nullish(),
  username: z.string().max(80).nullish(),
  icon_url: z.string().max(2048).nullish(),
  attachments: z.array(attachment).max(10).nullish(),
});
export type SlackInput = z.output<typeof slackSchema>;

/** The chat tool's named colours and its `#rgb`/`#rrggbb` forms. */
function colour(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const named: Record<string, number> = { good: 0x2eb886, warning: 0xdaa038, danger: 0xa30200 };
  if (named[value] !== undefined) return named[value];
  const hex = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value)?.[1];
  if (!hex) return undefined;
  return parseInt(hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex, 16);
}

/** The chat tool's link markup: `<url|label>` → `[label](url)`, `<url>` → url. */
export function slackLinks(text: string): string {
  return text.replace(/<(https?:\/\/[^|>\s]+)\|([^>]+)>/g, '[$2]($1)').replace(/<(https?:\/\/[^>\s]+)>/g, '$1');
}

const http = (v: string | null | undefined): string | undefined => (v && /^https?:\/\//.test(v) ? v : undefined);
const nonEmpty = (s: string): string | undefined => (s.trim() ? s : undefined);

function toEmbed(a: z.output<typeof attachment>): EmbedInput {
  const e: EmbedInput = {};
  if (a.title) e.title = clip(a.title, 256);
  if (http(a.title_link)) e.url = http(a.title_link)!;
  if (a.text) e.description = clip(slackLinks(a.text), 4096);
  const color = colour(a.color);
  if (color !== undefined) e.color = color;
  if (a.author_name)
    e.author = {
      name: clip(a.author_name, 256),
      ...(http(a.author_link) ? { url: http(a.author_link)! } : {}),
      ...(http(a.author_icon) ? { icon_url: http(a.author_icon)! } : {}),
    };
  const fields = (a.fields ?? []).flatMap((f) => {
    const name = nonEmpty(f.title ?? f.name ?? '');
    const value = nonEmpty(slackLinks(f.value ?? ''));
    return name && value ? [{ name: clip(name, 256), value: clip(value, 1024), inline: f.short ?? f.inline ?? false }] : [];
  });
  if (fields.length) e.fields = fields;
  if (http(a.image_url)) e.image = { url: http(a.image_url)! };
  if (http(a.thumb_url)) e.thumbnail = { url: http(a.thumb_url)! };
  if (a.footer) e.footer = { text: clip(a.footer, 2048), ...(http(a.footer_icon) ? { icon_url: http(a.footer_icon)! } : {}) };
  const ts = a.ts === undefined || a.ts === null ? undefined : Number(a.ts);
  if (ts !== undefined && Number.isFinite(ts) && ts > 0 && ts < 1e11) e.timestamp = new Date(ts * 1000).toISOString();
  // An attachment with nothing but its fallback still shows that text.
  if (Object.keys(e).length === 0 && a.fallback) e.description = clip(a.fallback, 4096);
  return e;
}

/** The message a chat-tool payload makes (pretexts lead the content, as the tool shows them above their attachments). */
export function fromSlack(input: SlackInput): ExecuteInput {
  const pretexts = (input.attachments ?? []).flatMap((a) => (a.pretext ? [slackLinks(a.pretext)] : []));
  const content = clip([input.text ? slackLinks(input.text) : '', ...pretexts].filter(Boolean).join('\n'), 2000);
  const embeds = (input.attachments ?? []).map(toEmbed).filter((e) => Object.keys(e).length > 0);
  return {
    ...(content ? { content } : {}),
    ...(input.username ? { username: input.username } : {}),
    ...(http(input.icon_url) ? { avatar_url: http(input.icon_url)! } : {}),
    ...(embeds.length ? { embeds } : {}),
  };
}
