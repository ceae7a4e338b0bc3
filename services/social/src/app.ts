import { fileURLToPath } from 'node:url';
import { addService, createClient, startService, type Logger, type RunningService } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { SocialService } from '@kith/proto/social/v1/social';
import type { SocialConfig } from './config.js';
import { ContactBookService } from './domain/contact-book.service.js';
import { ContactSyncService } from './domain/contact-sync.service.js';
import { GameRelationshipsService } from './domain/game-relationships.service.js';
import { ProfileService } from './domain/profile.service.js';
import { RelationshipListCache } from './domain/relationship-list.js';
import { RelationshipsService } from './domain/relationships.service.js';
import { SuggestionsService } from './domain/suggestions.service.js';
import { UserCache } from './domain/user-cache.js';
import { followUserUpdates } from './events/user-updates.js';
import { GrpcGuildDirectory } from './grpc/guild-directory.js';
import { socialGrpc } from './grpc/social.grpc.js';
import { AuthUserDirectory } from './grpc/user-directory.js';
import { gameRoutes, suggestionRoutes } from './http/game.routes.js';
import { contactRoutes } from './http/contacts.routes.js';
import { profileRoutes } from './http/profile.routes.js';
import { relationshipRoutes } from './http/relationships.routes.js';
import { PgContactBook } from './store/contact-book.store.js';
import { PgContactSyncTokens } from './store/contact-sync.store.js';
import { PgGameStore } from './store/game.store.js';
import { PgRelationshipQueries, PgRelationshipStore, type Emit } from './store/relationships.store.js';
import type { SocialDatabase } from './store/schema.js';
import { PgSuggestionStore } from './store/suggestions.store.js';

export const SERVICE_NAME = 'social';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningSocial = RunningService;

/** Builds the social graph service from its config and starts its HTTP and gRPC servers. */
export function startSocial(config: SocialConfig, logger?: Logger): Promise<RunningSocial> {
  return startService<SocialDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: ({ db, nats, outbox, logger: log }) => {
      const auth = createClient(AuthService, config.AUTH_GRPC_ADDR);
      const guilds = createClient(GuildsService, config.GUILDS_GRPC_ADDR);
      const emit: Emit = (trx, events) => outbox.enqueue(trx, events);
      const users = new AuthUserDirectory(auth);
      const store = new PgRelationshipStore(db, outbox);
      // Only what is shown (the list, a removal's events) uses cached users: the state machine checks
      // users (bots, existence) live.
      const cachedUsers = new UserCache(users, { ttlMs: config.USER_CACHE_TTL_MS, maxEntries: config.USER_CACHE_MAX_ENTRIES });
      const guildDirectory = new GrpcGuildDirectory(guilds, log);
      const relationships = new RelationshipsService(store, users, guildDirectory, undefined, cachedUsers);
      const userUpdates = followUserUpdates(nats, cachedUsers, log);
      const lists = new RelationshipListCache(store, cachedUsers, {
        ttlMs: config.USER_CACHE_TTL_MS,
        maxBytes: config.LIST_CACHE_MAX_BYTES,
      });
      const games = new GameRelationshipsService(new PgGameStore(db, emit), users);
      const suggestions = new SuggestionsService(new PgSuggestionStore(db, emit), users);
      const contactSync = new ContactSyncService(new PgContactSyncTokens(db), relationships);
      const contacts = new ContactBookService(new PgContactBook(db, emit), users, suggestions, contactSync, users);
      const queries = new PgRelationshipQueries(db);
      const profiles = new ProfileService(users, guildDirectory, queries);
      return {
        // No route of this service answers without a user.
        requireUser: true,
        routes: (app) => {
          relationshipRoutes(app, relationships, lists, contactSync);
          gameRoutes(app, games);
          suggestionRoutes(app, suggestions);
          contactRoutes(app, contacts);
          profileRoutes(app, profiles);
        },
        grpc: (server) => {
          addService(server, SocialService, socialGrpc({ queries, lists, games, contactSync, suggestions, relationships }), log);
          return [SocialService.typeName];
        },
        closers: [async () => userUpdates.close(), async () => auth.close(), async () => guilds.close()],
      };
    },
  });
}
