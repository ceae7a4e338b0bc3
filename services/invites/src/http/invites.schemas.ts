import { z } from 'zod';
import { snowflakeField } from '@kith/platform';

const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** Create Channel Invite (ranges of guild invites; group DMs narrow max_age in the domain). */
export const createInviteBody = z.object({
  max_age: int(0, 5_184_000).nullish(),
  max_uses: int(0, 100).nullish(),
  temporary: z.boolean().nullish(),
  unique: z.boolean().nullish(),
  flags: int(0, 2 ** 31 - 1).nullish(),
  target_type: int(1, 5).nullish(),
  target_user_id: snowflakeField.nullish(),
  target_application_id: snowflakeField.nullish(),
  role_ids: z.array(snowflakeField).max(250).nullish(),
});

const NUMERIC = new Set(['max_age', 'max_uses', 'flags', 'target_type']);
const BOOLEAN = new Set(['temporary', 'unique']);

/**
 * A form body's values are text: the numbers and booleans among them are read as JSON would carry
 * them, and anything else is left as it came for the schema to refuse.
 */
export function fromForm(form: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(form)) {
    if (typeof value !== 'string') out[key] = value;
    else if (NUMERIC.has(key) && /^-?\d{1,16}$/.test(value)) out[key] = Number(value);
    else if (BOOLEAN.has(key) && /^(true|false|True|False|1|0)$/.test(value)) out[key] = /^(true|True|1)$/.test(value);
    else if (key === 'role_ids') out[key] = value === '' ? [] : value.split(',');
    else out[key] = value;
  }
  return out;
}

const flag = z
  .enum(['true', 'false', 'True', 'False', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === 'True' || v === '1');

export const getInviteQuery = z.object({
  with_counts: flag,
  with_permissions: flag,
  with_expiration: flag,
  guild_scheduled_event_id: snowflakeField.optional(),
});

export const acceptInviteBody = z
  .object({
    session_id: z.string().max(128).nullish(),
  })
  .nullish();

export const channelParams = z.object({ channel_id: snowflakeField });
export const guildParams = z.object({ guild_id: snowflakeField });

export const createUserInviteBody = z
  .object({
    code: z.string().max(64).nullish(),
  })
  .nullish();
