import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { configKeys, loadConfig, serviceConfig } from '@kith/platform';

/** 32 bytes, base64: the AES-256-GCM key webhook tokens are kept under. */
const tokenKey = z
  .string()
  .min(1, 'a 32-byte key in base64 is required (scripts/gen-secrets.mjs makes one)')
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes in base64');

export const webhooksConfigSchema = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8107),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50057),
  REDIS_PREFIX: z.string().default('kith:webhooks:'),
  AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  GUILDS_GRPC_ADDR: z.string().default('127.0.0.1:50054'),
  /** Encrypts webhook tokens at rest (AES-256-GCM, 32 bytes in base64); the same in every replica. */
  WEBHOOK_TOKEN_KEY: tokenKey,
  /** The API base clients reach, for a webhook's `url` (`<base>/webhooks/<id>/<token>`). */
  PUBLIC_API_URL: configKeys.url(['http:', 'https:']).default('http://127.0.0.1:8080/api'),
  /** Where clients fetch attachments (`<url>/attachments/<channel>/<id>/<name>`): the edge serves them from this service. */
  PUBLIC_CDN_URL: configKeys.url(['http:', 'https:']).default('http://127.0.0.1:8080'),
  /**
   * An S3-compatible object store for attachments (its endpoint URL). Unset: a directory on disk
   * (ATTACHMENTS_DIR), the development default; a deployment with more than one replica sets it.
   */
  S3_ENDPOINT: configKeys.url(['http:', 'https:']).optional(),
  S3_BUCKET: z.string().min(3).default('kith-attachments'),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** Path-style bucket URLs, as S3-compatible stores want them; `false` for AWS's virtual hosts. */
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * How often each replica looks for attachment files to remove (of deleted messages, webhooks,
   * channels, guilds) beyond its own deletions, which start a sweep at once; failures retry later.
   */
  OBJECT_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * How long an execution's answers from guilds (its channel, who sees it, the guild's roles) are
   * remembered when no event of guilds says they changed (one missed while NATS was away).
   */
  GUILD_CACHE_TTL_MS: z.coerce.number().int().positive().default(1000),
  /** Attachments on disk when no S3_ENDPOINT is set. */
  ATTACHMENTS_DIR: z.string().default(join(tmpdir(), 'kith-attachments')),
  /** One file of a message at most (the platform's upload limit). */
  MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  /**
   * A whole multipart request at most (the platform's webhook request size): larger ones are
   * refused (40005) before they are read.
   */
  MAX_REQUEST_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(200 * 1024 * 1024),
  /**
   * A JSON (or form) body of an execution or message edit at most, 40005 beyond. It is parsed in
   * memory (about three times its size), so it stops below the multipart limit: at the code host's
   * own delivery cap (25 MB), which no sender of the platform's formats needs more than.
   */
  MAX_JSON_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  /** Bytes of JSON bodies over 1 MiB read and parsed at once; more wait their turn (or get a 503). */
  JSON_BUDGET_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
});

export type WebhooksConfig = z.output<typeof webhooksConfigSchema>;

export const loadWebhooksConfig = (env?: Record<string, string | undefined>): WebhooksConfig => loadConfig(webhooksConfigSchema, env);
