import { fileURLToPath } from 'node:url';
import { addService, createClient, startService, type Logger, type RunningService } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { InvitesService as InvitesGrpcService } from '@kith/proto/invites/v1/invites';
import { SocialService } from '@kith/proto/social/v1/social';
import type { InvitesConfig } from './config.js';
import { FriendInvitesService } from './domain/friend-invites.service.js';
import { InviteAcceptor } from './domain/invite.accept.js';
import { InviteCleanup } from './domain/invite.cleanup.js';
import { InviteCreator } from './domain/invite.create.js';
import { InviteRenderer } from './domain/invite.renderer.js';
import { InvitesService } from './domain/invites.service.js';
import { TargetUsersService } from './domain/target-users.service.js';
import { TargetUsersWorker } from './domain/target-users.worker.js';
import { UseReconciler } from './domain/use-reconciler.js';
import { followGuildDeletions } from './events/guild-cleanup.js';
import { AuthUsers } from './grpc/auth.users.js';
import { GrpcGuildDirectory } from './grpc/guilds.directory.js';
import { invitesGrpc } from './grpc/invites.grpc.js';
import { GrpcSocialDirectory } from './grpc/social.directory.js';
import { inviteRoutes } from './http/invites.routes.js';
import { PgApplications } from './store/applications.store.js';
import { PgInviteStore } from './store/invites.store.js';
import type { InvitesDatabase } from './store/schema.js';
import { PgTargetUsersStore } from './store/target-users.store.js';

export const SERVICE_NAME = 'invites';
/** Joining renders the guild for the new member (GUILD_CREATE): slower than a lookup under load. */
const GUILDS_DEADLINE_MS = 5000;
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningInvites = RunningService;

/** Builds the invites service from its config and starts its HTTP and gRPC servers. */
export function startInvites(config: InvitesConfig, logger?: Logger): Promise<RunningInvites> {
  return startService<InvitesDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: async ({ db, nats, outbox, logger: log }) => {
      const auth = createClient(AuthService, config.AUTH_GRPC_ADDR);
      const guildsClient = createClient(GuildsService, config.GUILDS_GRPC_ADDR, GUILDS_DEADLINE_MS);
      const guilds = new GrpcGuildDirectory(guildsClient);
      const users = new AuthUsers(auth);
      const store = new PgInviteStore(db, outbox);
      const render = new InviteRenderer(guilds, users, config.RENDER_CACHE_MS);
      const socialClient = createClient(SocialService, config.SOCIAL_GRPC_ADDR);
      const social = new GrpcSocialDirectory(socialClient);
      const targetStore = new PgTargetUsersStore(db);
      const worker = new TargetUsersWorker(targetStore, users, { idleMs: config.TARGET_USERS_POLL_MS, logger: log });
      const targets = new TargetUsersService(store, targetStore, guilds, worker);
      const invites = new InvitesService(store, guilds, render, social, targets);
      const friends = new FriendInvitesService(store, social, guilds, render);
      const creator = new InviteCreator(store, guilds, users, new PgApplications(db), targets);
      const acceptor = new InviteAcceptor(store, guilds, render, social, targets, config.RESERVATION_TTL_MS);
      const reconciler = new UseReconciler(store, guilds, social, { intervalMs: config.RESERVATION_CHECK_MS, logger: log });
      const deletions = await followGuildDeletions(nats, new InviteCleanup(store), log, config.DB_PREFIX);
      worker.start();
      reconciler.start();
      return {
        routes: (app) => inviteRoutes(app, { invites, targets, friends, creator, acceptor, render }),
        grpc: (server) => {
          addService(server, InvitesGrpcService, invitesGrpc({ acceptor, store }), log);
          return [InvitesGrpcService.typeName];
        },
        closers: [
          async () => deletions.close(),
          () => reconciler.stop(),
          async () => auth.close(),
          async () => guildsClient.close(),
          async () => socialClient.close(),
        ],
      };
    },
  });
}
