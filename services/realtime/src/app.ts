import type { Server } from 'node:http';
import {
  IdentityVerifier,
  closeHttpServer,
  connectNats,
  configureServiceCalls,
  createClient,
  createLogger,
  createRedis,
  createServiceApp,
  listen,
  type Closer,
  type Logger,
  ensureEventStream,
} from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { SocialService } from '@kith/proto/social/v1/social';
import type { RealtimeConfig } from './config.js';
import { Delivery } from './domain/delivery.js';
import { GatewayService } from './domain/gateway.service.js';
import { EventConsumer } from './events/event.consumer.js';
import { JetStreamEventLog } from './events/event.stream.js';
import { PresencePublisher } from './events/presence.publisher.js';
import { attachGatewaySockets } from './gateway/socket.server.js';
import { GrpcAuth } from './grpc/auth.client.js';
import { GrpcGuilds } from './grpc/guilds.client.js';
import { GrpcSocial } from './grpc/social.client.js';
import { gatewayRoutes } from './http/gateway.routes.js';
import { EventCopiesStore } from './store/event-copies.store.js';
import { RedisConnectionCounts } from './store/connection-counts.store.js';
import { SessionStore } from './store/session.store.js';

export const SERVICE_NAME = 'realtime';
const AUTH_DEADLINE_MS = 2000;
/**
 * READY's guilds render every guild of the user (channels, roles, member): slower than a token
 * check, and a READY without them leaves the session deaf to its guilds until the next Identify,
 * so guilds gets longer before READY goes without.
 */
const GUILDS_DEADLINE_MS = 5000;

export interface RunningRealtime {
  httpPort: number;
  server: Server;
  logger: Logger;
  gateway: GatewayService;
  /** The durable consumer's name on the EVENTS stream. */
  consumerName: string;
  /** Closers in shutdown order: stop accepting, stop consuming, send clients away, close stores. */
  closers: Closer[];
}

/** Builds the realtime service from its config: the gateway's WebSocket and HTTP on one port, fed by the event stream. */
export async function startRealtime(
  config: RealtimeConfig,
  logger = createLogger(SERVICE_NAME, config.LOG_LEVEL),
): Promise<RunningRealtime> {
  configureServiceCalls(config.SERVICE_TOKEN_KEY, SERVICE_NAME);
  const redis = createRedis(config.REDIS_URL, config.REDIS_PREFIX, logger);
  const nats = await connectNats(config.NATS_URL, `${SERVICE_NAME}-${config.REPLICA_ID}`, logger);
  const jsm = await nats.jetstreamManager();
  const verifier = await IdentityVerifier.fromPem(config.INTERNAL_TOKEN_PUBLIC_KEY, SERVICE_NAME);
  const authClient = createClient(AuthService, config.AUTH_GRPC_ADDR, AUTH_DEADLINE_MS);
  await ensureEventStream(nats);

  const store = new SessionStore(redis, { ttlMs: config.RESUME_WINDOW_MS, maxFrames: config.RESUME_BUFFER_FRAMES });
  const consumerName = `realtime_${config.REPLICA_ID}`;
  const consumer = await EventConsumer.create(
    nats,
    jsm,
    { durableName: consumerName, inactiveThresholdMs: config.EVENTS_CONSUMER_INACTIVE_MS, ackDelayMs: config.EVENTS_ACK_DELAY_MS },
    logger,
  );
  const delivery = new Delivery(store, consumer, logger, new EventCopiesStore(redis, config.EVENTS_DEDUPE_IDS_PER_SERVICE));
  await consumer.start((events) => delivery.deliver(events));
  const socialClient = config.SOCIAL_GRPC_ADDR ? createClient(SocialService, config.SOCIAL_GRPC_ADDR, AUTH_DEADLINE_MS) : undefined;
  const guildsClient = createClient(GuildsService, config.GUILDS_GRPC_ADDR, GUILDS_DEADLINE_MS);
  const social = socialClient ? new GrpcSocial(socialClient) : undefined;
  const presence = new PresencePublisher(redis, nats, social, config.RESUME_WINDOW_MS, logger);
  const gateway = new GatewayService({
    auth: new GrpcAuth(authClient),
    ...(social ? { social } : {}),
    presence,
    presences: presence,
    replies: presence,
    guilds: new GrpcGuilds(guildsClient),
    store,
    events: new JetStreamEventLog(nats, jsm, logger),
    position: consumer,
    delivery,
    connections: new RedisConnectionCounts(redis, nats),
    logger,
    options: { heartbeatIntervalMs: config.HEARTBEAT_INTERVAL_MS, publicUrl: config.PUBLIC_GATEWAY_URL },
  });

  const { app, setDraining } = createServiceApp({
    logger,
    verifier,
    // Sessions live in Redis and events come over NATS; auth only checks the tokens of new
    // connections, so an auth outage must not take the sockets already open out of rotation.
    readiness: {
      redis: () => redis.ping(),
      nats: () => nats.flush(),
    },
    routes: (a) => gatewayRoutes(a, config.PUBLIC_GATEWAY_URL),
  });
  const http = await listen(app, config.HTTP_PORT, config.HTTP_HOST);
  const sockets = attachGatewaySockets(http.server, gateway, logger, config.REPLICA_ID);
  const sweep = setInterval(() => gateway.sweep(), Math.min(1000, Math.max(20, config.HEARTBEAT_INTERVAL_MS / 4)));
  sweep.unref();
  logger.info({ http: http.port, consumer: consumerName }, 'realtime listening');

  return {
    httpPort: http.port,
    server: http.server,
    logger,
    gateway,
    consumerName,
    closers: [
      async () => {
        setDraining();
        sockets.setDraining();
      },
      // Events from here on reach the clients through their resume, on whichever replica.
      () => consumer.stop(),
      () => gateway.shutdown(config.SHUTDOWN_GRACE_MS),
      async () => presence.close(),
      () => sockets.close(),
      async () => clearInterval(sweep),
      () => closeHttpServer(http.server),
      async () => authClient.close(),
      async () => socialClient?.close(),
      async () => guildsClient.close(),
      () => nats.drain(),
      () => redis.quit(),
    ],
  };
}
