import { z } from 'zod';
import { lengthString, snowflakeField } from '@kith/platform';

const choices = (values: number[]) => ({
  params: { code: 'BASE_TYPE_CHOICES', message: `Value must be one of {${values.join(', ')}}.` },
});

export const userIdParam = snowflakeField;

export const sendRequestBody = z.object({
  username: z.string().min(1).max(64),
  discriminator: z.string().max(4).nullish(),
});

/** `type` -1 (or absent) accepts or requests, 1 accepts, 2 blocks; nothing else is creatable. */
export const createBody = z.object({
  type: z
    .number()
    .int()
    .nullish()
    .refine((t) => t === undefined || t === null || [-1, 1, 2].includes(t), choices([-1, 1, 2])),
  from_friend_suggestion: z.boolean().optional(),
  confirm_stranger_request: z.boolean().optional(),
  friend_token: z.string().max(256).nullish(),
});

export const modifyBody = z.object({
  nickname: lengthString(1, 32).nullish(),
});

/** Bulk remove's query: only incoming requests may be removed in bulk. */
export const bulkRemoveQuery = z.object({
  relationship_type: z.coerce
    .number()
    .int()
    .optional()
    .refine((t) => t === undefined || t === 3, choices([3])),
  only_spam: z
    .enum(['true', 'false', 'True', 'False', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === 'True' || v === '1'),
});

export const bulkRemoveBody = z
  .object({
    filters: z
      .array(
        z
          .number()
          .int()
          .refine((f) => f === 1 || f === 2, choices([1, 2])),
      )
      .max(2)
      .optional(),
  })
  .optional();

export const bulkAddBody = z.object({
  user_ids: z.array(snowflakeField).min(1).max(1000),
  token: z.string().min(1).max(512),
});

export const gameSendBody = z.object({
  username: z.string().min(1).max(64),
  application_id: snowflakeField.optional(),
});

export const gameCreateBody = z
  .object({
    type: z
      .number()
      .int()
      .nullish()
      .refine((t) => t === undefined || t === null || t === -1 || t === 1, choices([-1, 1])),
    application_id: snowflakeField.optional(),
  })
  .optional();

export const gameCreateByApplicationBody = z
  .object({
    type: z
      .number()
      .int()
      .nullish()
      .refine((t) => t === undefined || t === null || t === 1, choices([1])),
  })
  .optional();

/** A query boolean as the platform reads it (`true`/`false`, `True`/`False`, `1`/`0`); `fallback` when absent. */
const queryBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', 'True', 'False', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === 'True' || v === '1'));

export const profileQuery = z.object({
  with_mutual_guilds: queryBoolean(true),
  with_mutual_friends: queryBoolean(false),
  with_mutual_friends_count: queryBoolean(false),
  guild_id: snowflakeField.optional(),
});
