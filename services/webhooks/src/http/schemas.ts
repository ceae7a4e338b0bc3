import { z } from 'zod';
import { lengthString, snowflakeField } from '@kith/platform';

/** An image as a data URI (`data:image/png;base64,...`), or null to remove it. */
const imageField = z
  .string()
  .max(10_485_760)
  .refine((s) => /^data:image\/(png|jpe?g|gif|webp);base64,/.test(s), {
    params: { code: 'IMAGE_INVALID', message: 'Invalid image data' },
  })
  .nullish();

export const createWebhookBody = z.object({ name: lengthString(1, 80), avatar: imageField });
export const modifyWebhookBody = z.object({
  name: lengthString(1, 80).optional(),
  avatar: imageField,
  channel_id: snowflakeField.optional(),
});

/** A snowflake the body must have: missing (or null) is the platform's BASE_TYPE_REQUIRED, not a bad value. */
const requiredSnowflake = z
  .custom<unknown>((v) => v !== undefined && v !== null, { params: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' } })
  .pipe(snowflakeField);

export const followBody = z.object({ webhook_channel_id: requiredSnowflake });

export const channelParams = z.object({ channelId: snowflakeField });
export const guildParams = z.object({ guildId: snowflakeField });
export const webhookParams = z.object({ webhookId: snowflakeField });
export const messageParams = z.object({ messageId: snowflakeField });

/** Query booleans as the platform reads them. */
const queryBoolean = z
  .enum(['true', 'false', 'True', 'False', '1', '0'])
  .transform((v) => v === 'true' || v === 'True' || v === '1')
  .optional();

export const executeQuery = z.object({
  wait: queryBoolean,
  thread_id: snowflakeField.optional(),
  with_components: queryBoolean,
});
export const messageQuery = z.object({ thread_id: snowflakeField.optional(), with_components: queryBoolean });
