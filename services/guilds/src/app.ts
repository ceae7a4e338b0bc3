import { fileURLToPath } from 'node:url';
import { addService, createClient, startService, type Logger, type RunningService, type ServiceImpl } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildsConfig } from './config.js';
import type { GuildsDeps } from './domain/deps.js';
import { channelsGrpc } from './grpc/channels.grpc.js';
import { membershipGrpc } from './grpc/membership.grpc.js';
import { permissionsGrpc } from './grpc/permissions.grpc.js';
import { channelRoutes } from './http/channels.routes.js';
import { guildRoutes } from './http/guilds.routes.js';
import { PgAccess } from './store/access.store.js';
import type { GuildsDatabase } from './store/schema.js';

export const SERVICE_NAME = 'guilds';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningGuilds = RunningService;

/** The gRPC service, from the parts that own each method (addService refuses one left unimplemented). */
function guildsGrpc(deps: GuildsDeps): ServiceImpl<typeof GuildsService> {
  return { ...permissionsGrpc(deps), ...membershipGrpc(deps), ...channelsGrpc(deps) } as ServiceImpl<typeof GuildsService>;
}

/** Builds the guilds service from its config and starts its HTTP and gRPC servers. */
export function startGuilds(config: GuildsConfig, logger?: Logger): Promise<RunningGuilds> {
  return startService<GuildsDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: ({ db, outbox, ids, logger: log }) => {
      const auth = createClient(AuthService, config.AUTH_GRPC_ADDR);
      const deps: GuildsDeps = { db, outbox, ids, access: new PgAccess(db), auth, logger: log };
      return {
        // No route of this service answers without a user.
        requireUser: true,
        routes: (app) => {
          guildRoutes(app, deps);
          channelRoutes(app, deps);
        },
        grpc: (server) => {
          addService(server, GuildsService, guildsGrpc(deps), log);
          return [GuildsService.typeName];
        },
        closers: [async () => auth.close()],
      };
    },
  });
}
