import { z } from 'zod';
import { loadConfig, serviceConfig } from '@kith/platform';

export const guildsConfigSchema = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8104),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50054),
  REDIS_PREFIX: z.string().default('kith:guilds:'),
  AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
});

export type GuildsConfig = z.output<typeof guildsConfigSchema>;

export const loadGuildsConfig = (env?: Record<string, string | undefined>): GuildsConfig => loadConfig(guildsConfigSchema, env);
