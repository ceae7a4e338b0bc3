import { fileURLToPath } from 'node:url';
import { addService, startService, type Logger, type RunningService } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import type { AuthConfig } from './config.js';
import { randomBytes } from 'node:crypto';
import { AccountChangesService } from './domain/account-changes.service.js';
import { AccountsService } from './domain/accounts.service.js';
import { createSms } from './delivery/sms.js';
import { HandoffService } from './domain/handoff.service.js';
import { SecurityAlerts } from './domain/guards/alerts.js';
import { GuessLimits } from './domain/guards/guesses.js';
import { LoginLimits } from './domain/login-limits.js';
import { FingerprintsService } from './domain/registration/fingerprints.service.js';
import { PhoneVerificationService } from './domain/registration/phone-verification.service.js';
import { RateLimiter } from './domain/registration/rate-limit.js';
import { RegistrationGate } from './domain/registration/registration.gate.js';
import { UsernamesService } from './domain/registration/usernames.service.js';
import { UserDirectory } from './domain/users.service.js';
import { ElevationGuard } from './domain/mfa/elevation.js';
import { ElevationTokens } from './domain/mfa/elevation-token.js';
import { MfaEnrollment } from './domain/mfa/enrollment.js';
import { LoginMfa } from './domain/mfa/login-mfa.js';
import { MfaService } from './domain/mfa/mfa.service.js';
import { PasswordlessLogin } from './domain/mfa/passwordless.js';
import { SmsCodes } from './domain/mfa/sms.js';
import { SmsEnrollment } from './domain/mfa/sms-enrollment.js';
import { Tickets } from './domain/mfa/tickets.js';
import { WebAuthn } from './domain/mfa/webauthn.js';
import { PasswordHasher } from './domain/passwords.js';
import { UserUpdates } from './events/user.events.js';
import { SessionsService } from './domain/sessions.service.js';
import { SettingsService } from './domain/settings.service.js';
import { LoginLocations } from './domain/recovery/locations.js';
import { RecoveryLinks } from './domain/recovery/links.js';
import { Grants } from './domain/recovery/grants.js';
import { RecoveryService } from './domain/recovery/recovery.service.js';
import { createMailer } from './delivery/mail.js';
import { recoveryRoutes } from './http/recovery.routes.js';
import { authGrpc } from './grpc/auth.grpc.js';
import { accountRoutes } from './http/account.routes.js';
import { authRoutes } from './http/auth.routes.js';
import { handoffRoutes } from './http/handoff.routes.js';
import { phoneRoutes } from './http/phone.routes.js';
import { rateLimited } from './http/rate-limited.js';
import { registrationRoutes } from './http/registration.routes.js';
import { mfaRoutes } from './http/mfa.routes.js';
import { webauthnRoutes } from './http/webauthn.routes.js';
import { settingsRoutes } from './http/settings.routes.js';
import { AccountStore } from './store/account.store.js';
import { MfaStore } from './store/mfa.store.js';
import { RecoveryStore } from './store/recovery.store.js';
import { RedisBackoffs, RedisTicketStore, RedisTotpSteps, RedisValues, RedisWindows } from './store/redis.store.js';
import type { AuthDatabase } from './store/schema.js';
import { PgKnownSources, SessionsStore } from './store/sessions.store.js';
import { SettingsStore } from './store/settings.store.js';
import { SqlSmsAccountStore } from './store/sms.store.js';
import { UsersStore } from './store/users.store.js';
import { WebAuthnStore } from './store/webauthn.store.js';

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
    wire: ({ db, redis, ids, outbox, logger: log }) => {
      const users = new UsersStore(db);
      const userUpdates = new UserUpdates(outbox);
      const sessions = new SessionsService(new SessionsStore(db, outbox), {
        idleDays: config.SESSION_IDLE_DAYS,
        touchIntervalMs: config.SESSION_TOUCH_INTERVAL_MS,
      });
      const passwords = new PasswordHasher({ memoryKiB: config.ARGON2_MEMORY_KIB, iterations: config.ARGON2_ITERATIONS });
      const accountStore = new AccountStore(db, userUpdates);
      const windows = new RedisWindows(redis);
      const mailer = createMailer(config, log);
      const links = new RecoveryLinks(config.PUBLIC_WEB_URL);
      const alerts = new SecurityAlerts(mailer, links, log);
      const guesses = new GuessLimits(
        windows,
        {
          'second-factor': {
            name: 'mfa-failures:account',
            limit: config.MFA_FAILURES_PER_ACCOUNT,
            windowMs: config.MFA_FAILURE_WINDOW_SECONDS * 1000,
          },
          password: {
            name: 'password-failures:account',
            limit: config.PASSWORD_FAILURES_PER_ACCOUNT,
            windowMs: config.PASSWORD_FAILURE_WINDOW_SECONDS * 1000,
          },
        },
        alerts,
      );
      const mfa = new MfaService({ store: new MfaStore(db, userUpdates), steps: new RedisTotpSteps(redis), passwords, users, guesses });
      const tickets = new Tickets(new RedisTicketStore(redis), {
        ttlSeconds: config.MFA_TICKET_TTL_SECONDS,
        maxAttempts: config.MFA_TICKET_MAX_ATTEMPTS,
      });
      const elevationKey = config.MFA_ELEVATION_KEY ? Buffer.from(config.MFA_ELEVATION_KEY) : randomBytes(32);
      const oneTime = new RedisValues(redis);
      const limiter = new RateLimiter(windows);
      const sms = createSms(config, log);
      const smsCodes = new SmsCodes({ tickets, users: mfa, codes: oneTime, limiter, sms, logger: log });
      const webauthn = new WebAuthn({
        store: new WebAuthnStore(db, userUpdates),
        values: oneTime,
        ids: { next: () => String(ids.next()) },
        users: mfa,
        rp: {
          id: config.WEBAUTHN_RP_ID,
          name: config.WEBAUTHN_RP_NAME,
          origins: config.WEBAUTHN_ORIGINS.split(',').map((o) => o.trim()),
        },
      });
      const elevation = new ElevationGuard(new ElevationTokens(elevationKey), tickets, mfa, smsCodes, webauthn);
      const restore = (userId: string) => accountStore.restore(userId);
      const loginMfa = new LoginMfa({ mfa, tickets, sessions, restore, sms: smsCodes, webauthn });
      const recoveryStore = new RecoveryStore(db, userUpdates);
      const phones = new PhoneVerificationService(oneTime, limiter, sms, log, (phone) => recoveryStore.isBlacklisted(phone));
      const limits = new LoginLimits(
        windows,
        new RedisBackoffs(redis),
        new PgKnownSources(db),
        {
          perIp: config.LOGIN_FAILURES_PER_IP,
          ipWindowMs: config.LOGIN_FAILURE_WINDOW_SECONDS * 1000,
          perSource: config.LOGIN_FAILURES_PER_SOURCE,
          perAccount: config.LOGIN_FAILURES_PER_ACCOUNT,
          baseDelayMs: config.LOGIN_LOCKOUT_BASE_SECONDS * 1000,
          maxDelayMs: config.LOGIN_LOCKOUT_MAX_SECONDS * 1000,
        },
        alerts,
      );
      const fingerprints = new FingerprintsService(oneTime, ids, limiter);
      const grants = new Grants(oneTime);
      const locations = new LoginLocations(recoveryStore, grants, mailer, links, log);
      const accounts = new AccountsService(
        users,
        sessions,
        passwords,
        ids,
        { challenge: (user, undelete) => loginMfa.challenge(user, undelete), restore, limits, locations },
        new RegistrationGate(phones, fingerprints),
      );
      const usernames = new UsernamesService(users, (basis) => accounts.suggestUsername(basis));
      const handoff = new HandoffService(oneTime, users, sessions);
      const recovery = new RecoveryService({
        users,
        store: recoveryStore,
        grants,
        passwords,
        sessions,
        mfa,
        tickets,
        mailer,
        links,
        locations,
        lockouts: limits,
        log,
        phones,
        limiter,
        forgotLimits: {
          perLogin: { name: 'forgot:login', limit: config.FORGOT_PER_LOGIN, windowMs: config.FORGOT_WINDOW_SECONDS * 1000 },
          perIp: { name: 'forgot:ip', limit: config.FORGOT_PER_IP, windowMs: config.FORGOT_WINDOW_SECONDS * 1000 },
        },
      });
      const accountChanges = new AccountChangesService(users, accountStore, passwords, mfa, elevation, sessions, (before) =>
        recovery.emailChanged(before),
      );
      const settings = new SettingsService(new SettingsStore(db, userUpdates));
      return {
        routes: (app) => {
          registrationRoutes(app, { usernames, phones, fingerprints });
          handoffRoutes(app, handoff);
          authRoutes(app, accounts, sessions);
          settingsRoutes(app, settings);
          webauthnRoutes(app, { webauthn, guard: elevation, passwordless: new PasswordlessLogin({ webauthn, users: mfa, sessions }) });
          mfaRoutes(app, new MfaEnrollment(mfa, elevation, sessions), loginMfa, elevation);
          accountRoutes(app, accountChanges);
          recoveryRoutes(app, recovery, locations);
          phoneRoutes(app, new SmsEnrollment(mfa, elevation, phones, new SqlSmsAccountStore(db, userUpdates)), smsCodes);
          // The platform's 429 for every limit above (login failures, SMS sends).
          app.use(rateLimited);
        },
        closers: [() => mailer.close()],
        grpc: (server) => {
          addService(server, AuthService, authGrpc(sessions, new UserDirectory(users), settings, elevation), log);
          return [AuthService.typeName];
        },
      };
    },
  });
}
