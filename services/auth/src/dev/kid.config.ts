import { z } from 'zod';
import { baseConfig, configKeys, loadConfig } from '@kith/platform';

export const devKidConfigSchema = z.object({
  ...baseConfig,
  HOST: z.string().default('127.0.0.1'),
  K_ID_PORT: configKeys.port.default(8114),
  /** Where users' browsers reach the verification page (the webview URLs are built on it). */
  K_ID_PUBLIC_URL: configKeys.url(['http:', 'https:']).optional(),
  /** The API key auth presents; unset, any key is taken. */
  K_ID_API_KEY: z.string().min(1).optional(),
});

export type DevKidConfig = z.output<typeof devKidConfigSchema>;

export const loadDevKidConfig = (env?: Record<string, string | undefined>): DevKidConfig => loadConfig(devKidConfigSchema, env);
