import { z } from 'zod';
import { loadConfig, serviceConfig } from '@kith/platform';

export const authConfigSchema = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8101),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50051),
  REDIS_PREFIX: z.string().default('kith:auth:'),
  /** How long a session lives without being used, in days. */
  SESSION_IDLE_DAYS: z.coerce.number().int().positive().default(90),
  /** How often a session's last-used time is written back, at most (it is approximate by design). */
  SESSION_TOUCH_INTERVAL_MS: z.coerce.number().int().nonnegative().default(60_000),
  /** argon2id cost; the defaults are OWASP's minimum for argon2id. */
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(19456).default(19456),
  ARGON2_ITERATIONS: z.coerce.number().int().min(2).default(2),
});

export type AuthConfig = z.output<typeof authConfigSchema>;

export const loadAuthConfig = (env?: Record<string, string | undefined>): AuthConfig => loadConfig(authConfigSchema, env);
