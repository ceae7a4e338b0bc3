import { connect, type NatsConnection } from 'nats';
import {
  countPending,
  createClient,
  createDatabase,
  databaseUrl,
  eventSubject,
  type EventEnvelope,
  type Kysely,
  type ServiceClient,
} from '@kith/platform';
import { readStoredEvents, testSigner, unique, testDbPrefix } from '@kith/platform/testing';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import {
  api,
  call,
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
import { startSocial, type RunningSocial } from '../../../social/src/app.js';
import { socialConfigSchema } from '../../../social/src/config.js';
import { startIntegrations, type RunningIntegrations } from '../../src/app.js';
import { integrationsConfigSchema } from '../../src/config.js';
import { GifProvidersServer } from '../../src/dev/gif-providers.server.js';
import { StreamingStandIn } from '../../src/dev/streaming-providers.js';
import type { IntegrationsDatabase } from '../../src/store/schema.js';

export { api, newUser, stopAll, type Answer, type StackUser };

/** Tests read response bodies and event payloads freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

const DB_PREFIX = testDbPrefix();
export const INTEGRATIONS_DATABASE = `${DB_PREFIX}_integrations`;

/**
 * Real auth, guilds and social, the integrations service in this process (its own database, HTTP
 * and gRPC on free ports), the loopback GIF providers, and an edge in front of them all.
 */
export interface IntegrationsStack {
  under: AuthUnderTest;
  guilds: RunningGuilds;
  social: RunningSocial;
  integrations: RunningIntegrations;
  gifs: GifProvidersServer;
  streaming: StreamingStandIn;
  gateway: Awaited<ReturnType<typeof startTestGateway>>;
  base: string;
  db: Kysely<IntegrationsDatabase>;
  nats: NatsConnection;
  guildsGrpc: ServiceClient<typeof GuildsService>;
  authGrpc: ServiceClient<typeof AuthService>;
  /** The integrations service's Redis key prefix (its keys are this run's only). */
  redisPrefix: string;
  startedAt: Date;
}

export async function startIntegrationsStack(env: Record<string, string> = {}): Promise<IntegrationsStack> {
  const under = await startTestAuth();
  const common = serviceEnv(under);
  const guilds = await startTestGuilds(under);
  const social = await startSocial(socialConfigSchema.parse({ ...common, GUILDS_GRPC_ADDR: `127.0.0.1:${guilds.grpcPort}` }));
  const streaming = new StreamingStandIn({
    twitch: { id: 'twitch-client', secret: 'twitch-secret' },
    youtube: { id: 'google-client', secret: 'google-secret' },
  });
  const gifs = new GifProvidersServer({ keys: { tenor: 'tenor-key', giphy: 'giphy-key', klipy: 'klipy-key' }, streaming });
  const gifUrl = await gifs.listen();
  // Every test run starts with a cold cache: the keys of one run are not another's.
  const redisPrefix = `${unique('kith_test')}:integrations:`;
  const integrations = await startIntegrations(
    integrationsConfigSchema.parse({
      ...common,
      GUILDS_GRPC_ADDR: `127.0.0.1:${guilds.grpcPort}`,
      SOCIAL_GRPC_ADDR: `127.0.0.1:${social.grpcPort}`,
      TENOR_API_URL: gifUrl,
      TENOR_API_KEY: 'tenor-key',
      GIPHY_API_URL: gifUrl,
      GIPHY_API_KEY: 'giphy-key',
      KLIPY_API_URL: gifUrl,
      KLIPY_API_KEY: 'klipy-key',
      TWITCH_API_URL: gifUrl,
      TWITCH_AUTH_URL: gifUrl,
      TWITCH_CLIENT_ID: 'twitch-client',
      TWITCH_CLIENT_SECRET: 'twitch-secret',
      YOUTUBE_API_URL: gifUrl,
      GOOGLE_ACCOUNTS_URL: gifUrl,
      GOOGLE_TOKEN_URL: gifUrl,
      GOOGLE_CLIENT_ID: 'google-client',
      GOOGLE_CLIENT_SECRET: 'google-secret',
      REDIS_PREFIX: redisPrefix,
      ...env,
    }),
  );
  const gateway = await startTestGateway(under, {
    GUILDS_HTTP_URL: `http://127.0.0.1:${guilds.httpPort}`,
    SOCIAL_HTTP_URL: `http://127.0.0.1:${social.httpPort}`,
    INTEGRATIONS_HTTP_URL: `http://127.0.0.1:${integrations.httpPort}`,
  });
  const db = createDatabase<IntegrationsDatabase>({
    url: databaseUrl(under.stores.DATABASE_URL, INTEGRATIONS_DATABASE),
    maxConnections: 2,
  });
  const nats = await connect({ servers: under.stores.NATS_URL });
  const guildsGrpc = createClient(GuildsService, `127.0.0.1:${guilds.grpcPort}`, 5000);
  const authGrpc = createClient(AuthService, `127.0.0.1:${under.auth.grpcPort}`, 5000);
  return {
    under,
    guilds,
    social,
    integrations,
    gifs,
    streaming,
    gateway,
    base: gateway.base,
    db,
    nats,
    guildsGrpc,
    authGrpc,
    redisPrefix: env.REDIS_PREFIX ?? redisPrefix,
    startedAt: new Date(),
  };
}

export async function stopIntegrationsStack(stack: IntegrationsStack | undefined): Promise<void> {
  if (!stack) return;
  await stack.db.destroy();
  stack.guildsGrpc.close();
  stack.authGrpc.close();
  await stack.nats.drain();
  await stopAll(stack.gateway.closers, stack.integrations.closers, stack.social.closers, stack.guilds.closers, stack.under.auth.closers);
  await stack.gifs.close();
}

/**
 * A request straight to the integrations service with an identity signed as the edge signs it
 * (anonymous unless `userId`): for load the edge's own limits must not shape.
 */
export async function direct(stack: IntegrationsStack, path: string, userId: string | null = null): Promise<Answer> {
  const sign = await testSigner(stack.under.keys.privateKey);
  const identity = await sign('integrations', { userId });
  return call(`http://127.0.0.1:${stack.integrations.httpPort}`, path, { headers: { 'x-internal-identity': identity } });
}

/**
 * The events named `name` this service published since the stack started that `match`, once the
 * relay has published every event committed so far (it publishes after the commit).
 */
export async function publishedEvents<T = Body>(
  stack: IntegrationsStack,
  name: string,
  match: (e: EventEnvelope<T>) => boolean,
): Promise<EventEnvelope<T>[]> {
  const deadline = Date.now() + 10_000;
  while ((await countPending(stack.db)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const stored = await readStoredEvents<T>(stack.nats, eventSubject('integrations', name), stack.startedAt);
  return stored.map((s) => s.envelope).filter(match);
}

/** A guild made by `owner` through the edge. */
export async function newGuild(stack: IntegrationsStack, owner: StackUser, name = 'Integrations test'): Promise<string> {
  const res = await api(stack, owner, 'POST', '/guilds', { name });
  if (res.status !== 201) throw new Error(`guild create failed: ${res.status}`);
  return (res.body as { id: string }).id;
}

/** An application made by `owner`, with its bot. */
export async function newApplication(stack: IntegrationsStack, owner: StackUser, name = 'Helper App'): Promise<Body> {
  const res = await api(stack, owner, 'POST', '/applications', { name });
  if (res.status !== 201) throw new Error(`application create failed: ${res.status} ${res.text}`);
  return res.body;
}

/** `user` authorizes the application into the guild with these scopes. */
export function authorizeInto(
  stack: IntegrationsStack,
  user: StackUser,
  applicationId: string,
  guildId: string | undefined,
  scope = 'bot applications.commands',
): Promise<Answer<Body>> {
  const query = new URLSearchParams({ client_id: applicationId, scope });
  return api(stack, user, 'POST', `/oauth2/authorize?${query}`, {
    authorize: true,
    permissions: '0',
    ...(guildId ? { guild_id: guildId } : {}),
  });
}
