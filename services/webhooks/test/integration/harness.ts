import { randomBytes } from 'node:crypto';
import { createClient, createDatabase, databaseUrl, type Kysely, type ServiceClient } from '@kith/platform';
import { testDbPrefix } from '@kith/platform/testing';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import {
  api,
  newUser,
  serviceEnv,
  startTestAuth,
  startTestGateway,
  stopAll,
  type Answer,
  type AuthUnderTest,
  type StackUser,
} from '../../../../gateway/test/integration/harness.js';
import type { RunningGuilds } from '../../../guilds/src/app.js';
import { startTestGuilds } from '../../../guilds/test/integration/harness.js';
import { startWebhooks, type RunningWebhooks } from '../../src/app.js';
import { webhooksConfigSchema } from '../../src/config.js';
import type { WebhooksDatabase } from '../../src/store/schema.js';

export { api, newUser, stopAll, type Answer, type StackUser };

/** Tests read response bodies and event payloads freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

const DB_PREFIX = testDbPrefix();
export const WEBHOOKS_DATABASE = `${DB_PREFIX}_webhooks`;
export const TOKEN_KEY = randomBytes(32).toString('base64');

/** Real auth and guilds, the webhooks service in this process, and an edge in front of them. */
export interface WebhooksStack {
  under: AuthUnderTest;
  guilds: RunningGuilds;
  webhooks: RunningWebhooks;
  gateway: Awaited<ReturnType<typeof startTestGateway>>;
  base: string;
  grpc: ServiceClient<typeof GuildsService>;
  db: Kysely<WebhooksDatabase>;
}

export async function startWebhooksStack(
  env: Record<string, string> = {},
  gatewayEnv: Record<string, string> = {},
): Promise<WebhooksStack> {
  const under = await startTestAuth();
  const common = serviceEnv(under);
  const guilds = await startTestGuilds(under);
  const webhooks = await startWebhooks(
    webhooksConfigSchema.parse({ ...common, GUILDS_GRPC_ADDR: `127.0.0.1:${guilds.grpcPort}`, WEBHOOK_TOKEN_KEY: TOKEN_KEY, ...env }),
  );
  const gateway = await startTestGateway(under, {
    GUILDS_HTTP_URL: `http://127.0.0.1:${guilds.httpPort}`,
    WEBHOOKS_HTTP_URL: `http://127.0.0.1:${webhooks.httpPort}`,
    ...gatewayEnv,
  });
  const grpc = createClient(GuildsService, `127.0.0.1:${guilds.grpcPort}`, 10_000);
  const db = createDatabase<WebhooksDatabase>({ url: databaseUrl(under.stores.DATABASE_URL, WEBHOOKS_DATABASE), maxConnections: 2 });
  return { under, guilds, webhooks, gateway, base: gateway.base, grpc, db };
}

export async function stopWebhooksStack(stack: WebhooksStack | undefined): Promise<void> {
  if (!stack) return;
  stack.grpc.close();
  await stack.db.destroy();
  await stopAll(stack.gateway.closers, stack.webhooks.closers, stack.guilds.closers, stack.under.auth.closers);
}

/** A guild of `owner` with one text channel; returns both ids. */
export async function guildWithChannel(stack: WebhooksStack, owner: StackUser): Promise<{ guildId: string; channelId: string }> {
  const guild = await api(stack, owner, 'POST', '/guilds', { name: 'hooks' });
  const channel = await api(stack, owner, 'POST', `/guilds/${guild.body.id}/channels`, { name: 'general' });
  return { guildId: guild.body.id as string, channelId: channel.body.id as string };
}
