import { z } from 'zod';
import { loadConfig, serviceConfig } from '@kith/platform';

export const socialConfigSchema = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8102),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50052),
  REDIS_PREFIX: z.string().default('kith:social:'),
  AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
});

export type SocialConfig = z.output<typeof socialConfigSchema>;

export const loadSocialConfig = (env?: Record<string, string | undefined>): SocialConfig => loadConfig(socialConfigSchema, env);
