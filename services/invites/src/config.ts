import { z } from 'zod';
import { loadConfig, serviceConfig } from '@kith/platform';

export const invitesConfigSchema = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8103),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50053),
  REDIS_PREFIX: z.string().default('kith:invites:'),
  /** host:port of auth's gRPC server (inviters, target users). */
  AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  /** host:port of social's gRPC server (friend invites, friends in a guild). */
  SOCIAL_GRPC_ADDR: z.string().default('127.0.0.1:50052'),
  /** host:port of guilds' gRPC server (permissions, channels, joining guilds and group DMs). */
  GUILDS_GRPC_ADDR: z.string().default('127.0.0.1:50054'),
  /** How long what an invite shows (its guild and counts, channel, inviter) may be reused by a replica; 0 asks every time. */
  RENDER_CACHE_MS: z.coerce.number().int().nonnegative().default(2000),
  /** How often an idle replica looks for target users files to process (an upload to it wakes it at once). */
  TARGET_USERS_POLL_MS: z.coerce.number().int().positive().default(1000),
  /** How long a reserved use of a limited invite waits for its accept before the reconciler settles it. */
  RESERVATION_TTL_MS: z.coerce.number().int().positive().default(30_000),
  /** How often a replica looks for expired reservations to settle (an accept whose process died). */
  RESERVATION_CHECK_MS: z.coerce.number().int().positive().default(2000),
});

export type InvitesConfig = z.output<typeof invitesConfigSchema>;

export const loadInvitesConfig = (env?: Record<string, string | undefined>): InvitesConfig => loadConfig(invitesConfigSchema, env);
