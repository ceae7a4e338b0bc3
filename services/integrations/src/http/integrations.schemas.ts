import { z } from 'zod';
import { lengthString, snowflakeField } from '@kith/platform';

/** A boolean in a query string, as the platform reads one. */
const queryBoolean = z
  .enum(['true', 'false', 'True', 'False', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === 'True' || v === '1');

export const guildParams = z.object({ guild_id: snowflakeField });
export const guildIntegrationParams = z.object({ guild_id: snowflakeField, integration_id: snowflakeField });
export const channelParams = z.object({ channel_id: snowflakeField });
export const channelIntegrationParams = z.object({ channel_id: snowflakeField, integration_id: snowflakeField });
export const applicationParams = z.object({ application_id: snowflakeField });
export const applicationGuildParams = z.object({ application_id: snowflakeField, guild_id: snowflakeField });
export const commandParams = z.object({ application_id: snowflakeField, command_id: snowflakeField });

export const listQuery = z.object({ has_commands: queryBoolean, include_role_connections_metadata: queryBoolean });

const description = z.string().max(400);
const flags = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);

export const createApplicationBody = z.object({
  name: lengthString(2, 32),
  description: description.optional(),
  flags: flags.optional(),
});

/** Where an authorization may send the browser back: absolute http(s) URLs, as the platform takes. */
const redirectUri = z
  .string()
  .max(2048)
  .refine((value) => /^https?:\/\/\S+$/i.test(value) && URL.canParse(value), {
    params: { code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' },
  });

/** Image data as a data URI, or null to remove the icon; the bytes are checked when decoded. */
const iconField = z
  .string()
  .max(1_048_576)
  .refine((s) => /^data:image\/(png|jpe?g|gif|webp);base64,/.test(s), { params: { code: 'IMAGE_INVALID', message: 'Invalid image data' } })
  .nullable()
  .optional();

export const updateApplicationBody = z.object({
  icon: iconField,
  name: lengthString(2, 32).optional(),
  description: description.optional(),
  flags: flags.optional(),
  redirect_uris: z.array(redirectUri).max(10).optional(),
});

/** The platform's command names: lower case letters, digits, `-` and `_` (chat input commands). */
const COMMAND_NAME = /^[-_\p{Ll}\p{Lo}\p{N}]{1,32}$/u;

export const commandBody = z
  .object({
    name: lengthString(1, 32),
    description: z.string().max(100).optional(),
    type: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]).optional(),
    options: z.array(z.record(z.string(), z.unknown())).max(25).optional(),
  })
  .superRefine((body, ctx) => {
    const type = body.type ?? 1;
    if (type === 1 && !COMMAND_NAME.test(body.name))
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: 'bad name',
        params: { code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid' },
      });
    if (type === 1 && (body.description ?? '').length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['description'],
        message: 'required',
        params: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' },
      });
  })
  .transform((body) => ({ name: body.name, description: body.description ?? '', type: body.type ?? 1, options: body.options ?? [] }));

/** `scope` is space separated (a `+` in a query string is a space already). */
export const authorizeQuery = z.object({
  // A query value is text: missing is BASE_TYPE_REQUIRED, anything else must be an id.
  client_id: z.string().superRefine((value, ctx) => {
    if (!snowflakeField.safeParse(value).success)
      ctx.addIssue({
        code: 'custom',
        message: 'not an id',
        params: { code: 'NUMBER_TYPE_COERCE', message: `Value "${value.slice(0, 32)}" is not snowflake.` },
      });
  }),
  scope: z
    .string()
    .max(1000)
    .transform((s) => s.split(/[\s+]+/).filter(Boolean)),
  integration_type: z.coerce.number().int().min(0).max(1).optional().default(0),
  response_type: z.string().max(32).optional(),
  redirect_uri: z.string().max(2048).optional(),
  state: z.string().max(2048).optional(),
});

export const authorizeBody = z.object({
  authorize: z.boolean(),
  guild_id: snowflakeField.optional(),
  channel_id: snowflakeField.optional(),
  webhook_channel_id: snowflakeField.optional(),
  permissions: z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()]).optional(),
  integration_type: z.number().int().min(0).max(1).optional(),
});

/** The spec's neutral names stand for the platform's real ones. */
const STREAMING_NAMES: Record<string, 'twitch' | 'youtube'> = {
  twitch: 'twitch',
  youtube: 'youtube',
  streaming_a: 'twitch',
  streaming_b: 'youtube',
};

export const streamingType = z.string().transform((value, ctx) => {
  const type = STREAMING_NAMES[value];
  if (type) return type;
  ctx.addIssue({
    code: 'custom',
    message: 'unsupported type',
    params: {
      code: 'BASE_TYPE_CHOICES',
      message: 'Value must be one of (twitch, youtube); only streaming integrations can be enabled here.',
    },
  });
  return z.NEVER;
});

export const createIntegrationBody = z.object({ type: streamingType, id: lengthString(1, 100) });

/** An integer that must be one of `values` (BASE_TYPE_CHOICES otherwise). */
const oneOf = (values: readonly number[]) =>
  z
    .number()
    .int()
    .refine((v) => values.includes(v), { params: { code: 'BASE_TYPE_CHOICES', message: `Value must be one of (${values.join(', ')}).` } });

export const modifyIntegrationBody = z.object({
  expire_behavior: oneOf([0, 1]).optional(),
  expire_grace_period: oneOf([1, 3, 7, 14, 30]).optional(),
  enable_emoticons: z.boolean().optional(),
});

export const integrationParams = z.object({ integration_id: snowflakeField });
export const connectionTypeParams = z.object({ type: streamingType });
export const connectionParams = z.object({ type: streamingType, account_id: lengthString(1, 100) });
export const callbackBody = z.object({ code: lengthString(1, 512), state: lengthString(1, 128) });

/** Translations of a name or description, by locale: what the platform bounds them to. */
const localizations = (max: number) => z.record(z.string().min(2).max(10), lengthString(1, max)).nullable().optional();

const roleConnectionRecord = z.object({
  type: z.number().int().min(1).max(8),
  key: z
    .string()
    .min(1)
    .max(50)
    .refine((key) => /^[a-z0-9_]+$/.test(key), {
      params: { code: 'APPLICATION_ROLE_CONNECTION_METADATA_KEY_INVALID', message: 'Keys may hold only a-z, 0-9 and _.' },
    }),
  name: lengthString(1, 100),
  name_localizations: localizations(100),
  description: lengthString(1, 200),
  description_localizations: localizations(200),
});

/** Update Application Role Connection Metadata: at most 5 records, each key once. */
export const roleConnectionRecords = z
  .array(roleConnectionRecord)
  .max(5)
  .superRefine((records, ctx) => {
    const seen = new Set<string>();
    records.forEach((r, i) => {
      if (seen.has(r.key))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'key'],
          message: 'duplicate',
          params: { code: 'DUPLICATE_KEY', message: 'Keys must be unique.' },
        });
      seen.add(r.key);
    });
  });

export const appIconParams = z.object({ application_id: snowflakeField, file: z.string().max(64) });
