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
});

export type WebhooksConfig = z.output<typeof webhooksConfigSchema>;

export const loadWebhooksConfig = (env?: Record<string, string | undefined>): WebhooksConfig => loadConfig(webhooksConfigSchema, env);
