import { fileURLToPath } from 'node:url';
import { startService, type Logger, type RunningService } from '@kith/platform';
import type { AuthConfig } from './config.js';
import type { AuthDatabase } from './store/schema.js';
import { wireAuth } from './wiring.js';

export const SERVICE_NAME = 'auth';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningAuth = RunningService;

/** Builds the auth service from its config and starts its HTTP and gRPC servers. */
export function startAuth(config: AuthConfig, logger?: Logger): Promise<RunningAuth> {
  return startService<AuthDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: (parts) => wireAuth(config, parts),
  });
}
