import { fileURLToPath } from 'node:url';
import { addService, createClient, startService, type Logger, type RunningService } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { WebhooksService as WebhooksGrpcService } from '@kith/proto/webhooks/v1/webhooks';
import type { WebhooksConfig } from './config.js';
import { AttachmentsService } from './domain/attachments.service.js';
import { MessagesService } from './domain/messages.service.js';
import { ObjectSweeper } from './domain/object.sweeper.js';
import { AesTokenVault } from './domain/webhook.token.js';
import { WebhooksService } from './domain/webhooks.service.js';
import { GuildChanges } from './events/guild-changes.js';
import { GuildDeletes } from './events/guild-deletes.js';
import { AuthUsers } from './grpc/auth.users.js';
import { CachedGuildDirectory } from './grpc/guilds.cache.js';
import { GrpcGuildDirectory } from './grpc/guilds.directory.js';
import { webhooksGrpc } from './grpc/webhooks.grpc.js';
import { attachmentRoutes } from './http/attachments.routes.js';
import { JsonBodies, ownsJsonBody } from './http/json.body.js';
import { messageRoutes } from './http/messages.routes.js';
import { serviceRoutes } from './http/services.routes.js';
import { webhookRoutes } from './http/webhooks.routes.js';
import { DiskObjectStore } from './store/disk.objects.js';
import { PgMessageStore } from './store/messages.store.js';
import { PgDeletionQueue } from './store/object-deletions.store.js';
import { S3ObjectStore } from './store/s3.objects.js';
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
      const objects = config.S3_ENDPOINT
        ? new S3ObjectStore({
            endpoint: config.S3_ENDPOINT,
            bucket: config.S3_BUCKET,
            region: config.S3_REGION,
            accessKeyId: config.S3_ACCESS_KEY_ID,
            secretAccessKey: config.S3_SECRET_ACCESS_KEY,
            forcePathStyle: config.S3_FORCE_PATH_STYLE,
          })
        : new DiskObjectStore(config.ATTACHMENTS_DIR);
      if (objects instanceof S3ObjectStore) await objects.ensureBucket();
      // Files of deleted messages leave the store after their deletion commits (object_deletions).
      const deletions = new PgDeletionQueue(db);
      const sweeper = new ObjectSweeper(deletions, objects, log, {
        intervalMs: config.OBJECT_SWEEP_INTERVAL_MS,
        batch: 100,
      });
      const filesQueued = () => sweeper.wake();
      const webhooks = new WebhooksService({
        store: new PgWebhookStore(db, outbox, filesQueued),
        guilds,
        users,
        vault: new AesTokenVault(config.WEBHOOK_TOKEN_KEY),
        ids,
        apiUrl: config.PUBLIC_API_URL,
      });
      const attachments = new AttachmentsService(objects, ids, config.PUBLIC_CDN_URL, (keys) => deletions.enqueue(keys));
      // Every execution asks for its channel and audience: remembered for a second, forgotten at
      // once when guilds' events change them.
      const guildCache = new CachedGuildDirectory(guilds, config.GUILD_CACHE_TTL_MS);
      const guildChanges = new GuildChanges(nats, guildCache, log);
      guildChanges.start();
      const messages = new MessagesService({
        store: new PgMessageStore(db, outbox, filesQueued),
        guilds: guildCache,
        users,
        ids,
        reload: (id) => webhooks.reload(id),
      });
      const limits = { maxFiles: 10, maxFileBytes: config.MAX_FILE_BYTES, maxRequestBytes: config.MAX_REQUEST_BYTES };
      const deletes = new GuildDeletes(
        nats,
        // One set of consumers per database: the webhooks a deletion removes are that database's.
        `${config.DB_PREFIX}_webhooks`,
        (removal) => ('channelId' in removal ? webhooks.channelDeleted(removal.channelId) : webhooks.guildDeleted(removal.guildId)),
        log,
      );
      await deletes.start();
      sweeper.start();
      const bodies = new JsonBodies({ maxBytes: config.MAX_JSON_BYTES, budgetBytes: config.JSON_BUDGET_BYTES });
      return {
        ownJsonBody: ownsJsonBody,
        routes: (app) => {
          webhookRoutes(app, webhooks);
          messageRoutes(app, { webhooks, messages, attachments, limits, bodies, logger: log });
          serviceRoutes(app, { webhooks, messages, bodies, logger: log });
          attachmentRoutes(app, attachments);
        },
        grpc: (server) => {
          addService(server, WebhooksGrpcService, webhooksGrpc(webhooks), log);
          return [WebhooksGrpcService.typeName];
        },
        closers: [
          async () => deletes.stop(),
          async () => guildChanges.stop(),
          () => sweeper.stop(),
          async () => auth.close(),
          async () => guildsClient.close(),
          async () => (objects instanceof S3ObjectStore ? objects.close() : undefined),
        ],
      };
    },
  });
}
