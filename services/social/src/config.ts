import { z } from 'zod';
import { loadConfig, serviceConfig } from '@kith/platform';

export const socialConfigSchema = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8102),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50052),
  REDIS_PREFIX: z.string().default('kith:social:'),
  /** host:port of auth's gRPC server (users, tokens, settings). */
  AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  /** Mutual guilds for the friend-request privacy setting; unreachable means no mutual guild. */
  GUILDS_GRPC_ADDR: z.string().default('127.0.0.1:50054'),
  /** How long a cached user (and a list showing it) may be used without a USER_UPDATE reaching us. */
  USER_CACHE_TTL_MS: z.coerce.number().int().positive().default(60_000),
  /** Cached users kept per replica at most (see USER_CACHE_TTL_MS). */
  USER_CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(100_000),
  /** Rendered relationship lists kept per replica, in bytes (a 1,000-friend list is ~360 KiB). */
  LIST_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
});

export type SocialConfig = z.output<typeof socialConfigSchema>;

export const loadSocialConfig = (env?: Record<string, string | undefined>): SocialConfig => loadConfig(socialConfigSchema, env);
