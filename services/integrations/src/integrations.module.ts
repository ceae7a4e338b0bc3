import { createClient, type Logger, type Outbox, type SnowflakeGenerator } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { SocialService } from '@kith/proto/social/v1/social';
import { WebhooksService } from '@kith/proto/webhooks/v1/webhooks';
import type { Kysely } from 'kysely';
import type { Redis } from '@kith/platform';
import { ConnectionsService } from './domain/streaming/connections.service.js';
import { StreamingService } from './domain/streaming/streaming.service.js';
import type { StreamingProvider } from './domain/streaming/ports.js';
import type { StreamingType } from './domain/integrations/model.js';
import { TwitchAdapter } from './providers/streaming/twitch.adapter.js';
import { YouTubeAdapter } from './providers/streaming/youtube.adapter.js';
import { PgConnections, RedisConnectionStates } from './store/connections.store.js';
import { TokenSealer } from './store/sealing.js';
import { PgStreamingStore } from './store/streaming.store.js';
import { PgSyncJobs } from './store/sync-jobs.store.js';
import { SyncWorker } from './domain/streaming/sync.worker.js';
import type { IntegrationsConfig } from './config.js';
import { ApplicationsService } from './domain/applications/applications.service.js';
import { AuthorizePreview } from './domain/applications/authorize-preview.service.js';
import { AuthorizeService } from './domain/applications/authorize.service.js';
import { ChannelIntegrationsService } from './domain/integrations/channel-integrations.service.js';
import { IntegrationsService } from './domain/integrations/integrations.service.js';
import { AuthUsers, GrpcGuilds, GrpcSocial, GrpcWebhooks } from './grpc/peers.js';
import { RedisAuthorizationCodes } from './store/authorization-codes.store.js';
import { PgApplicationsStore } from './store/applications.store.js';
import { PgIntegrationsStore } from './store/integrations.store.js';
import { RedisGuildListCache } from './store/list-cache.store.js';
import type { IntegrationsDatabase } from './store/schema.js';

/** Applications, their authorization, and guild and channel integrations, over their stores and peers. */
export function integrationsModule(
  config: IntegrationsConfig,
  parts: { db: Kysely<IntegrationsDatabase>; redis: Redis; outbox: Outbox; ids: SnowflakeGenerator; logger: Logger },
) {
  const auth = createClient(AuthService, config.AUTH_GRPC_ADDR);
  const guildsClient = createClient(GuildsService, config.GUILDS_GRPC_ADDR);
  const socialClient = createClient(SocialService, config.SOCIAL_GRPC_ADDR);
  const ids = { next: () => String(parts.ids.next()) };
  const users = new AuthUsers(auth);
  const guilds = new GrpcGuilds(guildsClient);
  const applicationsStore = new PgApplicationsStore(parts.db);
  const listCache = new RedisGuildListCache(parts.redis, config.INTEGRATION_LIST_TTL_SECONDS);
  const store = new PgIntegrationsStore(parts.db, parts.outbox, listCache);
  // Where the webhooks service is deployed, an integration's webhooks go with it.
  const webhooks = config.WEBHOOKS_GRPC_ADDR ? new GrpcWebhooks(createClient(WebhooksService, config.WEBHOOKS_GRPC_ADDR)) : undefined;
  const integrations = new IntegrationsService(store, applicationsStore, guilds, users, webhooks, parts.logger, listCache);
  const http = { timeoutMs: config.PROVIDER_TIMEOUT_MS };
  const providers = new Map<StreamingType, StreamingProvider>([
    [
      'twitch',
      new TwitchAdapter({
        ...http,
        apiUrl: config.TWITCH_API_URL,
        authUrl: config.TWITCH_AUTH_URL,
        clientId: config.TWITCH_CLIENT_ID,
        clientSecret: config.TWITCH_CLIENT_SECRET,
      }),
    ],
    [
      'youtube',
      new YouTubeAdapter({
        ...http,
        apiUrl: config.YOUTUBE_API_URL,
        accountsUrl: config.GOOGLE_ACCOUNTS_URL,
        tokenUrl: config.GOOGLE_TOKEN_URL,
        clientId: config.GOOGLE_CLIENT_ID,
        clientSecret: config.GOOGLE_CLIENT_SECRET,
      }),
    ],
  ]);
  const connections = new PgConnections(parts.db, TokenSealer.fromConfig(config.CONNECTION_TOKEN_KEY, config.SERVICE_TOKEN_KEY));
  const streaming = new StreamingService(providers, store, new PgStreamingStore(parts.db), connections, guilds, integrations, ids);
  const syncWorker = new SyncWorker(new PgSyncJobs(parts.db), streaming, parts.logger, config.SYNC_POLL_MS);
  streaming.onSyncRequested = () => syncWorker.notify();
  return {
    streaming,
    syncWorker,
    connections: new ConnectionsService(providers, connections, new RedisConnectionStates(parts.redis), config.CONNECTIONS_REDIRECT_URL),
    integrations,
    channels: new ChannelIntegrationsService(store, guilds, integrations),
    applications: new ApplicationsService(applicationsStore, users, ids),
    authorize: new AuthorizeService(
      applicationsStore,
      store,
      integrations,
      guilds,
      new GrpcSocial(socialClient),
      ids,
      config.OAUTH2_AUTHORIZED_URL,
      new RedisAuthorizationCodes(parts.redis),
      webhooks,
    ),
    preview: new AuthorizePreview(applicationsStore, guilds, users),
    closers: [async () => auth.close(), async () => guildsClient.close(), async () => socialClient.close()],
  };
}
