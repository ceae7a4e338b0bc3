import { fileURLToPath } from 'node:url';
import { addService, createClient, startService, type Logger, type RunningService } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService as GuildsGrpcService } from '@kith/proto/guilds/v1/guilds';
import type { GuildsConfig } from './config.js';
import { guildsDomain } from './domain/guilds.domain.js';
import { followSessionsEnded } from './events/sessions-ended.js';
import { AuthUsers } from './grpc/auth.users.js';
import { guildsGrpc } from './grpc/guilds.grpc.js';
import { channelRoutes } from './http/channels.routes.js';
import { guildRoutes } from './http/guilds.routes.js';
import { PgAccess } from './store/access.store.js';
import { pgGuildsStore } from './store/guilds.unit.js';
import type { GuildsDatabase } from './store/schema.js';

export const SERVICE_NAME = 'guilds';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningGuilds = RunningService;

/** Builds the guilds service from its config and starts its HTTP and gRPC servers. */
export function startGuilds(config: GuildsConfig, logger?: Logger): Promise<RunningGuilds> {
  return startService<GuildsDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: async ({ db, nats, outbox, ids, logger: log }) => {
      const auth = createClient(AuthService, config.AUTH_GRPC_ADDR);
      const users = new AuthUsers(auth);
      // One permission reader per process: its caches serve every request and CheckPermissions.
      const access = new PgAccess(db);
      const domain = guildsDomain({ store: pgGuildsStore(db, access, outbox), users, ids, checker: access });
      const sessionsEnded = await followSessionsEnded(nats, domain.membership, log, config.DB_PREFIX);
      return {
        // No route of this service answers without a user.
        requireUser: true,
        routes: (app) => {
          guildRoutes(app, domain);
          channelRoutes(app, domain.channels);
        },
        grpc: (server) => {
          addService(server, GuildsGrpcService, guildsGrpc(domain), log);
          return [GuildsGrpcService.typeName];
        },
        closers: [async () => sessionsEnded.close(), async () => auth.close()],
      };
    },
  });
}
