import { createClient, type Logger, type Outbox, type SnowflakeGenerator } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { SocialService } from '@kith/proto/social/v1/social';
import type { Kysely } from 'kysely';
import type { IntegrationsConfig } from './config.js';
import { ApplicationsService } from './domain/applications/applications.service.js';
import { AuthorizeService } from './domain/applications/authorize.service.js';
import { ChannelIntegrationsService } from './domain/integrations/channel-integrations.service.js';
import { IntegrationsService } from './domain/integrations/integrations.service.js';
import { AuthUsers, GrpcGuilds, GrpcSocial } from './grpc/peers.js';
import { PgApplicationsStore } from './store/applications.store.js';
import { PgIntegrationsStore } from './store/integrations.store.js';
import type { IntegrationsDatabase } from './store/schema.js';

/** Applications, their authorization, and guild and channel integrations, over their stores and peers. */
export function integrationsModule(
  config: IntegrationsConfig,
  parts: { db: Kysely<IntegrationsDatabase>; outbox: Outbox; ids: SnowflakeGenerator; logger: Logger },
) {
  const auth = createClient(AuthService, config.AUTH_GRPC_ADDR);
  const guildsClient = createClient(GuildsService, config.GUILDS_GRPC_ADDR);
  const socialClient = createClient(SocialService, config.SOCIAL_GRPC_ADDR);
  const ids = { next: () => String(parts.ids.next()) };
  const users = new AuthUsers(auth);
  const guilds = new GrpcGuilds(guildsClient);
  const applicationsStore = new PgApplicationsStore(parts.db);
  const store = new PgIntegrationsStore(parts.db, parts.outbox);
  // The webhooks service's cleanup joins here once it serves gRPC (WEBHOOKS_GRPC_ADDR).
  const integrations = new IntegrationsService(store, applicationsStore, guilds, users, undefined, parts.logger);
  return {
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
    ),
    closers: [async () => auth.close(), async () => guildsClient.close(), async () => socialClient.close()],
  };
}
