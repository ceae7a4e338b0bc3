import { fileURLToPath } from 'node:url';
import {
  IdentityVerifier,
  SnowflakeGenerator,
  addService,
  closeHttpServer,
  connectNats,
  createLogger,
  createRedis,
  createServiceApp,
  listen,
  openServiceDatabase,
  sql,
  startGrpcServer,
  type Closer,
  type Logger,
} from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import type { AuthConfig } from './config.js';
import { AccountsService } from './domain/accounts.service.js';
import { PasswordHasher } from './domain/passwords.js';
import { SessionsService } from './domain/sessions.service.js';
import { NatsSessionEvents } from './events/session.events.js';
import { authGrpc } from './grpc/auth.grpc.js';
import { authRoutes } from './http/auth.routes.js';
import type { AuthDatabase } from './store/schema.js';
import { SessionsStore } from './store/sessions.store.js';
import { UsersStore } from './store/users.store.js';

export const SERVICE_NAME = 'auth';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export interface RunningAuth {
  httpPort: number;
  grpcPort: number;
  logger: Logger;
  /** Closers in shutdown order: stop accepting, drain, close stores. */
  closers: Closer[];
  setDraining(): void;
}

/** Builds the auth service from its config and starts its HTTP and gRPC servers. */
export async function startAuth(config: AuthConfig, logger = createLogger(SERVICE_NAME, config.LOG_LEVEL)): Promise<RunningAuth> {
  const db = await openServiceDatabase<AuthDatabase>({
    adminUrl: config.DATABASE_URL,
    name: `${config.DB_PREFIX}_${SERVICE_NAME}`,
    migrationsFolder: MIGRATIONS,
    logger,
    maxConnections: 20,
  });
  const redis = createRedis(config.REDIS_URL, config.REDIS_PREFIX, logger);
  const nats = await connectNats(config.NATS_URL, SERVICE_NAME, logger);
  const verifier = await IdentityVerifier.fromPem(config.INTERNAL_TOKEN_PUBLIC_KEY, SERVICE_NAME);

  const users = new UsersStore(db);
  const sessions = new SessionsService(new SessionsStore(db), new NatsSessionEvents(nats), {
    idleDays: config.SESSION_IDLE_DAYS,
    touchIntervalMs: config.SESSION_TOUCH_INTERVAL_MS,
  });
  const passwords = new PasswordHasher({ memoryKiB: config.ARGON2_MEMORY_KIB, iterations: config.ARGON2_ITERATIONS });
  const accounts = new AccountsService(users, sessions, passwords, new SnowflakeGenerator());

  const { app, setDraining } = createServiceApp({
    logger,
    verifier,
    readiness: {
      postgres: () => sql`SELECT 1`.execute(db),
      redis: () => redis.ping(),
      nats: () => nats.flush(),
    },
    routes: (a) => authRoutes(a, accounts, sessions),
  });
  const http = await listen(app, config.HTTP_PORT, config.HTTP_HOST);
  const grpc = await startGrpcServer({
    host: config.HTTP_HOST,
    port: config.GRPC_PORT,
    logger,
    register: (server) => {
      addService(server, AuthService, authGrpc(sessions, users), logger);
      return [AuthService.typeName];
    },
  });
  logger.info({ http: http.port, grpc: grpc.port }, 'auth listening');

  return {
    httpPort: http.port,
    grpcPort: grpc.port,
    logger,
    setDraining,
    closers: [
      async () => setDraining(),
      () => closeHttpServer(http.server),
      () => grpc.close(),
      () => nats.drain(),
      () => redis.quit(),
      () => db.destroy(),
    ],
  };
}
