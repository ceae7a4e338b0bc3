import { fileURLToPath } from 'node:url';
import { createClient, startService, type Logger, type RunningService } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { WebhooksConfig } from './config.js';
import { MessagesService } from './domain/messages.service.js';
import { AesTokenVault } from './domain/webhook.token.js';
import { WebhooksService } from './domain/webhooks.service.js';
import { GuildDeletes } from './events/guild-deletes.js';
import { AuthUsers } from './grpc/auth.users.js';
import { GrpcGuildDirectory } from './grpc/guilds.directory.js';
import { messageRoutes } from './http/messages.routes.js';
import { webhookRoutes } from './http/webhooks.routes.js';
import { PgMessageStore } from './store/messages.store.js';
import type { WebhooksDatabase } from './store/schema.js';
import { PgWebhookStore } from './store/webhooks.store.js';

export const SERVICE_NAME = 'webhooks';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningWebhooks = RunningService;

/** Builds the webhooks service (webhooks, their messages and attachments) and starts its servers. */
export function startWebhooks(config: WebhooksConfig, logger?: Logger): Promise<RunningWebhooks> {
  return startService<WebhooksDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: async ({ db, nats, outbox, ids, logger: log }) => {
      const auth = createClient(AuthService, config.AUTH_GRPC_ADDR);
      const guildsClient = createClient(GuildsService, config.GUILDS_GRPC_ADDR);
      const guilds = new GrpcGuildDirectory(guildsClient);
      const users = new AuthUsers(auth);
      const webhooks = new WebhooksService({
        store: new PgWebhookStore(db, outbox),
        guilds,
        users,
        vault: new AesTokenVault(config.WEBHOOK_TOKEN_KEY),
        ids,
        apiUrl: config.PUBLIC_API_URL,
      });
      const messages = new MessagesService({ store: new PgMessageStore(db, outbox), guilds, users, ids });
      const deletes = new GuildDeletes(
        nats,
        // One set of consumers per database: the webhooks a deletion removes are that database's.
        `${config.DB_PREFIX}_webhooks`,
        (removal) => ('channelId' in removal ? webhooks.channelDeleted(removal.channelId) : webhooks.guildDeleted(removal.guildId)),
        log,
      );
      await deletes.start();
      return {
        routes: (app) => {
          webhookRoutes(app, webhooks);
          messageRoutes(app, webhooks, messages, log);
        },
        closers: [async () => deletes.stop(), async () => auth.close(), async () => guildsClient.close()],
      };
    },
  });
}
