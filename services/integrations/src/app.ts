import { fileURLToPath } from 'node:url';
import { startService, type Logger, type RunningService } from '@kith/platform';
import type { IntegrationsConfig } from './config.js';
import { gifsModule } from './gifs.module.js';
import { applicationRoutes } from './http/applications.routes.js';
import { gifRoutes } from './http/gifs.routes.js';
import { integrationRoutes } from './http/integrations.routes.js';
import { streamingRoutes } from './http/streaming.routes.js';
import { providerErrors } from './http/provider-errors.js';
import { integrationsModule } from './integrations.module.js';
import type { IntegrationsDatabase } from './store/schema.js';

export const SERVICE_NAME = 'integrations';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningIntegrations = RunningService;

/** Builds the integrations service (applications, integrations, connections, GIFs) and starts its servers. */
export function startIntegrations(config: IntegrationsConfig, logger?: Logger): Promise<RunningIntegrations> {
  return startService<IntegrationsDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: ({ db, redis, outbox, ids, logger: log }) => {
      const gifs = gifsModule(config, redis, log);
      const m = integrationsModule(config, { db, redis, outbox, ids, logger: log });
      m.syncWorker.start();
      return {
        routes: (app) => {
          gifRoutes(app, gifs);
          integrationRoutes(app, m.integrations, m.channels);
          applicationRoutes(app, m.applications, m.authorize, m.preview);
          streamingRoutes(app, m.streaming, m.connections);
          providerErrors(app);
        },
        closers: [...m.closers, () => m.syncWorker.stop()],
      };
    },
  });
}
