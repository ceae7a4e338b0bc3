import type { Express, Request } from 'express';
import type { Server as GrpcServerHandle } from '@grpc/grpc-js';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { NatsConnection } from 'nats';
import { databaseUrl, openServiceDatabase, sql } from './db.js';
import { startGrpcServer } from './grpc.js';
import { closeHttpServer, createServiceApp, listen } from './http.js';
import { IdentityVerifier } from './identity.js';
import type { Closer } from './lifecycle.js';
import { createLogger, type Logger } from './logger.js';
import { Outbox } from './outbox.js';
import { OutboxRelay } from './outbox.relay.js';
import { configureServiceCalls } from './service-calls.js';
import { SnowflakeGenerator } from './snowflake.js';
import { connectNats, createRedis } from './stores.js';

/** The config keys every database-owning service has (see `serviceConfig`). */
export interface ServiceBaseConfig {
  LOG_LEVEL: string;
  HTTP_PORT: number;
  GRPC_PORT: number;
  HTTP_HOST: string;
  DATABASE_URL: string;
  /** Connections to PostgreSQL this process may hold: the pool's, and the outbox listener's one. */
  DB_CONNECTIONS: number;
  DB_PREFIX: string;
  REDIS_URL: string;
  REDIS_PREFIX: string;
  NATS_URL: string;
  INTERNAL_TOKEN_PUBLIC_KEY: string;
  /** The deployment's gRPC service key (service-calls.ts); unset, one of this process only. */
  SERVICE_TOKEN_KEY?: string | undefined;
}

/** What a service's own wiring gets to build its stores and domain from. */
export interface ServiceParts<DB> {
  name: string;
  db: Kysely<DB>;
  redis: Redis;
  nats: NatsConnection;
  logger: Logger;
  ids: SnowflakeGenerator;
  /** Writes events in the caller's transaction; the service's relay publishes them. */
  outbox: Outbox;
}

/** What the service adds to the common shape: its routes, its gRPC services, its own closers. */
export interface ServiceWiring {
  routes(app: Express): void;
  /** Every route needs a user (`createServiceApp`'s `requireUser`): anonymous requests are 401 first. */
  requireUser?: boolean;
  /** Requests whose JSON body the service reads itself (`createServiceApp`'s `ownJsonBody`). */
  ownJsonBody?: (req: Request) => boolean;
  /** Registers gRPC services and returns their names for the health service. */
  grpc?(server: GrpcServerHandle): string[];
  /** Closed after the servers stop and before the stores close. */
  closers?: Closer[];
}

export interface RunningService {
  httpPort: number;
  grpcPort: number;
  logger: Logger;
  /** In shutdown order: stop accepting, drain, then close the stores. */
  closers: Closer[];
}

/**
 * Starts a database-owning service the way every one starts: its database created and migrated,
 * Redis under its prefix, NATS, the identity check, the outbox relay, the HTTP app and the gRPC
 * server with health. `wire` builds the service's own parts from the shared ones.
 */
export async function startService<DB>(opts: {
  name: string;
  config: ServiceBaseConfig;
  migrationsFolder: string;
  logger?: Logger;
  wire(parts: ServiceParts<DB>): ServiceWiring | Promise<ServiceWiring>;
}): Promise<RunningService> {
  const { name, config } = opts;
  const logger = opts.logger ?? createLogger(name, config.LOG_LEVEL);
  // Before any client or server exists: every gRPC call this process makes or takes is signed or checked with it.
  configureServiceCalls(config.SERVICE_TOKEN_KEY, name);
  const dbName = `${config.DB_PREFIX}_${name}`;
  // Every connection of this process says whose it is in pg_stat_activity (an operator's first question when they run out).
  const adminUrl = withApplicationName(config.DATABASE_URL, `kith-${name}`);
  const db = await openServiceDatabase<DB>({
    adminUrl,
    name: dbName,
    migrationsFolder: opts.migrationsFolder,
    logger,
    // The outbox listener holds the other one (OutboxRelay); the relay's batches use the pool.
    maxConnections: config.DB_CONNECTIONS - 1,
  });
  const redis = createRedis(config.REDIS_URL, config.REDIS_PREFIX, logger);
  const nats = await connectNats(config.NATS_URL, name, logger);
  const verifier = await IdentityVerifier.fromPem(config.INTERNAL_TOKEN_PUBLIC_KEY, name);
  const ids = new SnowflakeGenerator();
  const wiring = await opts.wire({ name, db, redis, nats, logger, ids, outbox: new Outbox(name, ids) });

  const { app, setDraining } = createServiceApp({
    logger,
    verifier,
    readiness: { postgres: () => sql`SELECT 1`.execute(db), redis: () => redis.ping(), nats: () => nats.flush() },
    routes: wiring.routes,
    ...(wiring.requireUser ? { requireUser: true } : {}),
    ...(wiring.ownJsonBody ? { ownJsonBody: wiring.ownJsonBody } : {}),
  });
  const http = await listen(app, config.HTTP_PORT, config.HTTP_HOST);
  const grpc = await startGrpcServer({
    host: config.HTTP_HOST,
    port: config.GRPC_PORT,
    logger,
    register: (server) => wiring.grpc?.(server) ?? [],
  });
  logger.info({ http: http.port, grpc: grpc.port }, `${name} listening`);
  // Publishes what this and every other replica write to the outbox; one of them at a time.
  const relay = new OutboxRelay({ db, databaseUrl: databaseUrl(adminUrl, dbName), nats, logger });
  relay.start();

  return {
    httpPort: http.port,
    grpcPort: grpc.port,
    logger,
    closers: [
      async () => setDraining(),
      () => closeHttpServer(http.server),
      () => grpc.close(),
      ...(wiring.closers ?? []),
      // After the servers (nothing enqueues any more) and before NATS drains: the batch in flight is
      // acknowledged or rolled back; rows still pending go out from another replica or the next start.
      () => relay.stop(),
      () => nats.drain(),
      () => redis.quit(),
      () => db.destroy(),
    ],
  };
}

function withApplicationName(url: string, applicationName: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', applicationName);
  return parsed.toString();
}
