import { z } from 'zod';
import { lengthString, snowflakeField } from '@kith/platform';

/** Request bodies of the channel endpoints (HTTP decodes with these; the domain gets typed input). */

const choices = (values: readonly number[]) => ({
  params: { code: 'BASE_TYPE_CHOICES', message: `Value must be one of {${values.join(', ')}}.` },
});
const oneOf = (values: readonly number[]) =>
  z
    .number()
    .int()
    .refine((v) => values.includes(v), choices(values));
const intIn = (min: number, max: number) =>
  z
    .number()
    .int()
    .refine((v) => v >= min && v <= max, {
      params: { code: 'NUMBER_TYPE_MAX', message: `int value should be between ${min} and ${max}.` },
    });

/** Bitfields are decimal strings (numbers are accepted, as the platform does). */
const bitsField = z
  .union([z.string(), z.number().int().nonnegative()])
  .transform((v) => String(v))
  .refine((v) => /^\d{1,20}$/.test(v) && BigInt(v) < 1n << 64n, {
    params: { code: 'NUMBER_TYPE_COERCE', message: 'Value is not a valid permission bitfield.' },
  })
  .transform((v) => BigInt(v));

export const CREATABLE_TYPES = [0, 2, 4, 5, 15] as const;
export const AUTO_ARCHIVE_DURATIONS = [60, 1440, 4320, 10080] as const;

export const overwriteInput = z.object({
  id: snowflakeField,
  type: oneOf([0, 1]),
  allow: bitsField.nullish(),
  deny: bitsField.nullish(),
});
export type OverwriteInput = z.output<typeof overwriteInput>;

const channelFields = {
  topic: lengthString(0, 4096).nullish(),
  nsfw: z.boolean().nullish(),
  bitrate: intIn(8000, 384000).nullish(),
  user_limit: intIn(0, 99).nullish(),
  rate_limit_per_user: intIn(0, 21600).nullish(),
  position: z.number().int().nullish(),
  permission_overwrites: z.array(overwriteInput).max(100).nullish(),
  parent_id: snowflakeField.nullish(),
  default_auto_archive_duration: oneOf(AUTO_ARCHIVE_DURATIONS).nullish(),
};

export const createChannelBody = z.object({
  name: lengthString(1, 100),
  type: oneOf(CREATABLE_TYPES).nullish(),
  ...channelFields,
});
export type CreateChannelInput = z.output<typeof createChannelBody>;

/** PATCH /channels/{id}: guild channel fields, thread fields and a group DM's name. */
export const modifyChannelBody = z.object({
  name: lengthString(1, 100).optional(),
  ...channelFields,
  archived: z.boolean().optional(),
  locked: z.boolean().optional(),
  auto_archive_duration: oneOf(AUTO_ARCHIVE_DURATIONS).optional(),
});
export type ModifyChannelInput = z.output<typeof modifyChannelBody>;

export const positionsBody = z
  .array(
    z.object({
      id: snowflakeField,
      position: z.number().int().nullish(),
      parent_id: snowflakeField.nullish(),
      lock_permissions: z.boolean().nullish(),
    }),
  )
  .min(1)
  .max(500);
export type PositionInput = z.output<typeof positionsBody>[number];

export const putOverwriteBody = z.object({
  type: oneOf([0, 1]),
  allow: bitsField.nullish(),
  deny: bitsField.nullish(),
});

export const createThreadBody = z.object({
  name: lengthString(1, 100),
  type: oneOf([10, 11, 12]).nullish(),
  auto_archive_duration: oneOf(AUTO_ARCHIVE_DURATIONS).nullish(),
  invitable: z.boolean().nullish(),
  rate_limit_per_user: intIn(0, 21600).nullish(),
  message: z.object({ content: lengthString(1, 2000) }).nullish(),
});
export type CreateThreadInput = z.output<typeof createThreadBody>;

export const archivedQuery = z.object({
  before: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const openPrivateBody = z.object({
  recipient_id: snowflakeField.nullish(),
  recipients: z.array(snowflakeField).max(10).nullish(),
});
export type OpenPrivateInput = z.output<typeof openPrivateBody>;
