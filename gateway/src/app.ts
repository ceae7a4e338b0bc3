import type { Server } from 'node:http';
import {
  IdentitySigner,
  Redis,
  closeHttpServer,
  configureServiceCalls,
  connectNats,
  createClient,
  createLogger,
  listen,
  UpstreamError,
  type Closer,
  type Logger,
} from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { ClientIpResolver } from './client-ip.js';
import { ClientSlots } from './client-slots.js';
import type { GatewayConfig } from './config.js';
import { Cors } from './cors.js';
import { createEdgeHandler } from './edge.js';
import { EdgeRateLimits } from './rate-limits.js';
import { Upstreams } from './proxy.js';
import { RevocationFeed } from './revocation.feed.js';
import { TokenCache } from './token.cache.js';
import { createUpgradeProxy } from './upgrade.js';

const VALIDATE_DEADLINE_MS = 1500;
/**
 * A signed identity is handed out again for this long for the same user, session, address,
 * fingerprint and service: an Ed25519 signature per request was ~5% of the edge's CPU. A reused
 * token is at most this old on arrival, far inside its 30 s life and the 5 s clock tolerance.
 */
const IDENTITY_REUSE_MS = 5000;

export interface RunningGateway {
  port: number;
  server: Server;
  logger: Logger;
  tokens: TokenCache;
  closers: Closer[];
}

export async function startGateway(config: GatewayConfig, logger = createLogger('gateway', config.LOG_LEVEL)): Promise<RunningGateway> {
  configureServiceCalls(config.SERVICE_TOKEN_KEY, 'gateway');
  const signer = await IdentitySigner.fromPem(config.INTERNAL_TOKEN_PRIVATE_KEY, { reuseMs: IDENTITY_REUSE_MS });
  const auth = createClient(AuthService, config.AUTH_GRPC_ADDR, VALIDATE_DEADLINE_MS);
  const tokens = new TokenCache(
    async (token, clientIp) => {
      const answer = await auth.validateToken({ token, clientIp }).catch((err: unknown) => {
        // Auth too busy to check a token in time (a surge of logins and registrations hashing
        // passwords) is this edge unable to serve the request for a moment, not a slow service
        // behind it: 503 with Retry-After, which clients wait out and retry, instead of 504.
        throw err instanceof UpstreamError && err.status === 504 ? new UpstreamError(503, `token check: ${err.message}`) : err;
      });
      return answer.valid ? { userId: answer.userId, sessionId: answer.sessionId, bot: answer.bot } : null;
    },
    { ttlMs: config.AUTH_CACHE_TTL_MS, feedTtlMs: config.AUTH_CACHE_FEED_TTL_MS, maxEntries: config.AUTH_CACHE_MAX_ENTRIES },
  );

  const nats = await connectNats(config.NATS_URL, 'gateway', logger);
  const feed = new RevocationFeed(nats, tokens, logger);
  feed.start();

  const upstreams = new Upstreams(
    {
      auth: config.AUTH_HTTP_URL,
      social: config.SOCIAL_HTTP_URL,
      invites: config.INVITES_HTTP_URL,
      guilds: config.GUILDS_HTTP_URL,
      integrations: config.INTEGRATIONS_HTTP_URL,
      billing: config.BILLING_HTTP_URL,
      webhooks: config.WEBHOOKS_HTTP_URL,
      realtime: config.REALTIME_HTTP_URL,
    },
    {
      connections: config.UPSTREAM_CONNECTIONS,
      headersTimeoutMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: config.UPSTREAM_BODY_TIMEOUT_MS,
    },
  );

  // Commands issued in one tick go out together; a command Redis cannot take at once fails at once,
  // and the limiter counts in memory instead, so a Redis outage never holds a request up.
  const redis = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_PREFIX,
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
  });
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis error'));
  const limits =
    config.RATE_LIMITING === 'on'
      ? new EdgeRateLimits(redis, { scale: config.RATE_LIMITS_SCALE, overrides: config.RATE_LIMIT_OVERRIDES ?? {} }, logger)
      : undefined;

  let draining = false;
  const clientIp = new ClientIpResolver(config.TRUSTED_PROXIES);
  const handler = createEdgeHandler({
    logger,
    signer,
    tokens,
    upstreams,
    clientIp,
    cors: new Cors(config.CORS_ORIGINS),
    maxBodyBytes: config.MAX_BODY_BYTES,
    bodies: { bufferBytes: config.BODY_BUFFER_BYTES, idleMs: config.BODY_IDLE_TIMEOUT_MS, totalMs: config.BODY_TIMEOUT_MS },
    slots: new ClientSlots(config.UPSTREAM_PER_CLIENT, config.UPSTREAM_CLIENT_QUEUE),
    ...(limits ? { limits } : {}),
    probes: {
      // Ready means this edge can take traffic, whatever its dependencies do: while auth is down
      // only requests whose token must be checked fail, and taking every edge out of rotation
      // would fail all the rest too. Their states are reported for operators, not gated on.
      async ready() {
        const dependencies: Record<string, string> = { nats: nats.isClosed() ? 'closed' : 'ok', auth: 'ok' };
        try {
          await auth.validateToken({ token: '' }, { deadlineMs: 1000 });
        } catch (err) {
          dependencies.auth = err instanceof Error ? err.message : 'failed';
        }
        return { ready: !draining, dependencies };
      },
    },
  });
  const { server, port } = await listen(handler, config.PORT, config.HOST);
  const upgrades = createUpgradeProxy({ logger, clientIp, realtimeUrl: config.REALTIME_HTTP_URL });
  server.on('upgrade', upgrades.handle);
  logger.info({ port, url: `http://${config.HOST}:${port}/api/v9` }, 'gateway listening');

  return {
    port,
    server,
    logger,
    tokens,
    closers: [
      async () => void (draining = true),
      // Relayed sockets would hold the server open; cut, their clients resume through another edge.
      async () => upgrades.close(),
      () => closeHttpServer(server),
      () => upstreams.close(),
      async () => auth.close(),
      () => redis.quit().catch(() => undefined),
      async () => feed.stop(),
      () => nats.drain(),
    ],
  };
}
