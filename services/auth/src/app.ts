import { fileURLToPath } from 'node:url';
import { addService, startService, type Logger, type RunningService } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import type { AuthConfig } from './config.js';
import { AccountsService } from './domain/accounts.service.js';
import { PasswordHasher } from './domain/passwords.js';
import { SessionsService } from './domain/sessions.service.js';
import { SettingsService } from './domain/settings.service.js';
import { authGrpc } from './grpc/auth.grpc.js';
import { authRoutes } from './http/auth.routes.js';
import { settingsRoutes } from './http/settings.routes.js';
import type { AuthDatabase } from './store/schema.js';
import { SessionsStore } from './store/sessions.store.js';
import { SettingsStore } from './store/settings.store.js';
import { UsersStore } from './store/users.store.js';

export const SERVICE_NAME = 'auth';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningAuth = RunningService;

/** Builds the auth service from its config and starts its HTTP and gRPC servers. */
export function startAuth(config: AuthConfig, logger?: Logger): Promise<RunningAuth> {
  return startService<AuthDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: ({ db, ids, outbox, logger: log }) => {
      const users = new UsersStore(db);
      const sessions = new SessionsService(new SessionsStore(db, outbox), {
        idleDays: config.SESSION_IDLE_DAYS,
        touchIntervalMs: config.SESSION_TOUCH_INTERVAL_MS,
      });
      const passwords = new PasswordHasher({ memoryKiB: config.ARGON2_MEMORY_KIB, iterations: config.ARGON2_ITERATIONS });
      const accounts = new AccountsService(users, sessions, passwords, ids);
      const settings = new SettingsService(new SettingsStore(db));
      return {
        routes: (app) => {
          authRoutes(app, accounts, sessions);
          settingsRoutes(app, settings);
        },
        grpc: (server) => {
          addService(server, AuthService, authGrpc(sessions, users, settings), log);
          return [AuthService.typeName];
        },
      };
    },
  });
}
