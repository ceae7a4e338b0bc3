import { z } from 'zod';
import { baseConfig, configKeys, loadConfig } from '@kith/platform';

export const devProvidersConfigSchema = z.object({
  ...baseConfig,
  HOST: z.string().default('127.0.0.1'),
  GIF_PROVIDERS_PORT: configKeys.port.default(8111),
  /** The address clients reach the GIF server at (its media URLs are built on it). */
  GIF_PROVIDERS_PUBLIC_URL: configKeys.url(['http:', 'https:']).optional(),
});

export type DevProvidersConfig = z.output<typeof devProvidersConfigSchema>;

export const loadDevProvidersConfig = (env?: Record<string, string | undefined>): DevProvidersConfig =>
  loadConfig(devProvidersConfigSchema, env);
