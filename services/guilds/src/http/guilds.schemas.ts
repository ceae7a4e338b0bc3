import type { Request } from 'express';
import { z } from 'zod';
import { lengthString, parse } from '@kith/platform';
import { bitsField, idField, oneOf } from './fields.js';

/** Text fields (NUL and broken surrogate pairs are refused by the platform's `parse`, before any schema). */
const text = (max: number) => z.string().max(max);

/** Names are trimmed before their length is checked, as the platform does. */
const trimmed = (min: number, max: number) =>
  z
    .string()
    .transform((s) => s.trim())
    .pipe(lengthString(min, max))
    .pipe(text(max));

/** An image as a data URI (`data:image/png;base64,...`), or null to remove it. */
const imageField = z
  .string()
  .max(10_485_760)
  .refine((s) => /^data:image\/(png|jpe?g|gif|webp);base64,/.test(s), {
    params: { code: 'IMAGE_INVALID', message: 'Invalid image data' },
  })
  .nullish();

const guildSettings = {
  icon: imageField,
  banner: imageField,
  splash: imageField,
  description: text(300).nullish(),
  verification_level: oneOf([0, 1, 2, 3, 4]).optional(),
  default_message_notifications: oneOf([0, 1]).optional(),
  explicit_content_filter: oneOf([0, 1, 2]).optional(),
  afk_timeout: oneOf([60, 300, 900, 1800, 3600]).optional(),
  system_channel_flags: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  preferred_locale: text(16).min(2).optional(),
  premium_progress_bar_enabled: z.boolean().optional(),
};

export const createGuildBody = z.object({
  name: trimmed(2, 100),
  region: z.string().nullish(),
  ...guildSettings,
});

export const updateGuildBody = z.object({
  name: trimmed(2, 100).optional(),
  ...guildSettings,
  afk_channel_id: idField.nullish(),
  system_channel_id: idField.nullish(),
  rules_channel_id: idField.nullish(),
  public_updates_channel_id: idField.nullish(),
  owner_id: idField.optional(),
});

export const withCountsQuery = z.object({
  with_counts: z
    .enum(['true', 'false', 'True', 'False', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === 'True' || v === '1'),
});

const limitOf = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const userGuildsQuery = withCountsQuery.extend({
  before: idField.optional(),
  after: idField.optional(),
  limit: limitOf(200, 200),
});

export const membersQuery = z.object({ after: idField.optional(), limit: limitOf(1000, 1) });

export const bansQuery = z.object({ before: idField.optional(), after: idField.optional(), limit: limitOf(1000, 1000) });

const roleSettings = {
  name: text(100).optional(),
  permissions: bitsField.nullish(),
  color: z.number().int().min(0).max(0xffffff).nullish(),
  hoist: z.boolean().nullish(),
  icon: imageField,
  unicode_emoji: text(32).nullish(),
  mentionable: z.boolean().nullish(),
};

export const roleBody = z.object(roleSettings);

export const rolePositionsBody = z.array(z.object({ id: idField, position: z.number().int().min(0).nullish() })).max(250);

export const memberBody = z.object({
  nick: text(32).nullish(),
  roles: z.array(idField).max(250).nullish(),
  mute: z.boolean().optional(),
  deaf: z.boolean().optional(),
  communication_disabled_until: z.iso.datetime({ offset: true }).nullish(),
});

export const myMemberBody = z.object({ nick: text(32).nullish() });

export const banBody = z
  .object({
    delete_message_days: z.number().int().min(0).max(7).optional(),
    delete_message_seconds: z.number().int().min(0).max(604_800).optional(),
    reason: text(512).optional(),
  })
  .optional();

/** A member verification form field (the platform's object; `response` is the applicant's, never the form's). */
const formField = z.object({
  field_type: z.enum(['TERMS', 'TEXT_INPUT', 'PARAGRAPH', 'MULTIPLE_CHOICE']),
  label: text(300),
  required: z.boolean(),
  description: text(300).nullish(),
  placeholder: text(300).nullish(),
  values: z.array(text(300)).min(1).max(16).nullish(),
  choices: z.array(text(150)).min(1).max(8).nullish(),
  automations: z.array(text(300)).max(10).nullish(),
});

export const memberVerificationBody = z.object({
  enabled: z.boolean().optional(),
  form_fields: z.array(formField).max(5).optional(),
  description: text(300).nullish(),
});

/** Create Guild Join Request: the form's fields, each with the applicant's `response`. */
export const joinRequestBody = z.object({
  form_fields: z.array(formField.extend({ response: z.union([z.boolean(), z.number().int(), text(1000)]).nullish() })).max(5),
  version: z.string().datetime({ offset: true }).nullish(),
});

export const guildParams = z.object({ guild_id: idField });
export const roleParams = guildParams.extend({ role_id: idField });
export const userParams = guildParams.extend({ user_id: idField });
export const memberRoleParams = userParams.extend({ role_id: idField });

export const guildIdOf = (req: Request): string => parse(guildParams, req.params).guild_id;

/** Drops the keys a body left out or set to null where null means "leave as is". */
export function present<T extends object>(
  body: T,
  nullable: readonly string[] = [],
): Partial<{ [K in keyof T]: NonNullable<T[K]> | null }> {
  return Object.fromEntries(
    Object.entries(body).filter(([key, value]) => value !== undefined && (value !== null || nullable.includes(key))),
  ) as Partial<{ [K in keyof T]: NonNullable<T[K]> | null }>;
}
