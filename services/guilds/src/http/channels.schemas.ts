import { z } from 'zod';
import { lengthString } from '@kith/platform';
import { bitsField, idField, intIn, oneOf } from './fields.js';

/** Request bodies of the channel endpoints: decoded here, the domain gets their typed output (domain/channel.input.ts). */

/** Text fields (NUL and broken surrogate pairs are refused by the platform's `parse`, before any schema). */
const text = (min: number, max: number) => lengthString(min, max);

export const CREATABLE_TYPES = [0, 2, 4, 5, 15] as const;
export const AUTO_ARCHIVE_DURATIONS = [60, 1440, 4320, 10080] as const;

export const overwriteInput = z.object({
  id: idField,
  type: oneOf([0, 1]),
  allow: bitsField.nullish(),
  deny: bitsField.nullish(),
});

const channelFields = {
  topic: text(0, 4096).nullish(),
  nsfw: z.boolean().nullish(),
  bitrate: intIn(8000, 384000).nullish(),
  user_limit: intIn(0, 99).nullish(),
  rate_limit_per_user: intIn(0, 21600).nullish(),
  position: intIn(-2147483648, 2147483647).nullish(),
  permission_overwrites: z.array(overwriteInput).max(100).nullish(),
  parent_id: idField.nullish(),
  default_auto_archive_duration: oneOf(AUTO_ARCHIVE_DURATIONS).nullish(),
};

export const createChannelBody = z.object({
  name: text(1, 100),
  type: oneOf(CREATABLE_TYPES).nullish(),
  ...channelFields,
});

/** PATCH /channels/{id}: guild channel fields, thread fields and a group DM's name. */
export const modifyChannelBody = z.object({
  name: text(1, 100).optional(),
  ...channelFields,
  archived: z.boolean().optional(),
  locked: z.boolean().optional(),
  auto_archive_duration: oneOf(AUTO_ARCHIVE_DURATIONS).optional(),
});

export const positionsBody = z
  .array(
    z.object({
      id: idField,
      position: intIn(-2147483648, 2147483647).nullish(),
      parent_id: idField.nullish(),
      lock_permissions: z.boolean().nullish(),
    }),
  )
  .min(1)
  .max(500);

export const putOverwriteBody = z.object({
  type: oneOf([0, 1]),
  allow: bitsField.nullish(),
  deny: bitsField.nullish(),
});

export const createThreadBody = z.object({
  name: text(1, 100),
  type: oneOf([10, 11, 12]).nullish(),
  auto_archive_duration: oneOf(AUTO_ARCHIVE_DURATIONS).nullish(),
  invitable: z.boolean().nullish(),
  rate_limit_per_user: intIn(0, 21600).nullish(),
  message: z.object({ content: text(1, 2000) }).nullish(),
});

export const archivedQuery = z.object({
  before: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const openPrivateBody = z.object({
  recipient_id: idField.nullish(),
  recipients: z.array(idField).max(10).nullish(),
});
