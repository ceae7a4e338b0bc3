import { randomBytes } from 'node:crypto';
import { addService, createClient, WorkQueue, type ServiceParts, type ServiceWiring } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { InvitesService } from '@kith/proto/invites/v1/invites';
import type { AuthConfig } from './config.js';
import { createMailer } from './delivery/mail.js';
import { KidAgeVerifier } from './delivery/age-verification.js';
import { createSms } from './delivery/sms.js';
import { AccountChangesService } from './domain/account-changes.service.js';
import { AccountsService, type InviteRedeemer } from './domain/accounts.service.js';
import { ContactsService } from './domain/contacts.service.js';
import { DevicesService } from './domain/devices.service.js';
import { AgeVerificationService } from './domain/standing/age-verification.service.js';
import { StandingService } from './domain/standing/standing.service.js';
import { SecurityAlerts } from './domain/guards/alerts.js';
import { GuessLimits } from './domain/guards/guesses.js';
import { HandoffService } from './domain/handoff.service.js';
import { LoginLimits } from './domain/login-limits.js';
import { ElevationGuard } from './domain/mfa/elevation.js';
import { ElevationTokens } from './domain/mfa/elevation-token.js';
import { MfaEnrollment } from './domain/mfa/enrollment.js';
import { LoginMfa } from './domain/mfa/login-mfa.js';
import { MfaService } from './domain/mfa/mfa.service.js';
import { PasswordlessLogin } from './domain/mfa/passwordless.js';
import { SmsEnrollment } from './domain/mfa/sms-enrollment.js';
import { SmsCodes } from './domain/mfa/sms.js';
import { Tickets } from './domain/mfa/tickets.js';
import { WebAuthn } from './domain/mfa/webauthn.js';
import { PasswordHasher } from './domain/passwords.js';
import { Grants } from './domain/recovery/grants.js';
import { RecoveryLinks } from './domain/recovery/links.js';
import { LoginLocations } from './domain/recovery/locations.js';
import { RecoveryService } from './domain/recovery/recovery.service.js';
import { FingerprintsService } from './domain/registration/fingerprints.service.js';
import { PhoneVerificationService } from './domain/registration/phone-verification.service.js';
import { RateLimiter } from './domain/registration/rate-limit.js';
import { RegistrationGate } from './domain/registration/registration.gate.js';
import { UsernamesService } from './domain/registration/usernames.service.js';
import { SessionsService } from './domain/sessions.service.js';
import { SettingsService } from './domain/settings.service.js';
import { UserDirectory } from './domain/users.service.js';
import { BotTokens, BotUsers } from './domain/bots.service.js';
import { UserUpdates } from './events/user.events.js';
import { authGrpc } from './grpc/auth.grpc.js';
import { GrpcInviteRedeemer } from './grpc/invites.client.js';
import { accountRoutes } from './http/account.routes.js';
import { authRoutes } from './http/auth.routes.js';
import { devicesRoutes } from './http/devices.routes.js';
import { safetyHubRoutes } from './http/safety-hub.routes.js';
import { handoffRoutes } from './http/handoff.routes.js';
import { mfaRoutes } from './http/mfa.routes.js';
import { phoneRoutes } from './http/phone.routes.js';
import { rateLimited } from './http/rate-limited.js';
import { recoveryRoutes } from './http/recovery.routes.js';
import { registrationRoutes } from './http/registration.routes.js';
import { settingsRoutes } from './http/settings.routes.js';
import { webauthnRoutes } from './http/webauthn.routes.js';
import { AccountStore } from './store/account.store.js';
import { ContactsStore } from './store/contacts.store.js';
import { PgDevices } from './store/devices.store.js';
import { StandingStore } from './store/standing.store.js';
import { MfaStore } from './store/mfa.store.js';
import { RecoveryStore } from './store/recovery.store.js';
import { RedisBackoffs, RedisTicketStore, RedisTotpSteps, RedisValues, RedisWindows } from './store/redis.store.js';
import type { AuthDatabase } from './store/schema.js';
import { PgKnownSources, SessionsStore } from './store/sessions.store.js';
import { SettingsStore } from './store/settings.store.js';
import { SqlSmsAccountStore } from './store/sms.store.js';
import { UsersStore } from './store/users.store.js';
import { WebAuthnStore } from './store/webauthn.store.js';

type Parts = ServiceParts<AuthDatabase>;

/** The service's stores, over its database and its Redis prefix. */
function stores({ db, redis, outbox }: Parts) {
  const updates = new UserUpdates(outbox);
  return {
    users: new UsersStore(db),
    accounts: new AccountStore(db, updates),
    sessions: new SessionsStore(db, outbox),
    devices: new PgDevices(db),
    standing: new StandingStore(db, outbox),
    knownSources: new PgKnownSources(db),
    mfa: new MfaStore(db, updates),
    sms: new SqlSmsAccountStore(db, updates),
    webauthn: new WebAuthnStore(db, updates),
    recovery: new RecoveryStore(db, updates),
    settings: new SettingsStore(db, updates),
    values: new RedisValues(redis),
    windows: new RedisWindows(redis),
    backoffs: new RedisBackoffs(redis),
    tickets: new RedisTicketStore(redis),
    totpSteps: new RedisTotpSteps(redis),
  };
}
type Stores = ReturnType<typeof stores>;

/** What most modules share: sessions, password hashing, mail and texts, rate limits. */
function basics(config: AuthConfig, { logger }: Parts, s: Stores) {
  return {
    sessions: new SessionsService(s.sessions, { idleDays: config.SESSION_IDLE_DAYS, touchIntervalMs: config.SESSION_TOUCH_INTERVAL_MS }),
    passwords: new PasswordHasher({
      memoryKiB: config.ARGON2_MEMORY_KIB,
      iterations: config.ARGON2_ITERATIONS,
      queue: new WorkQueue({
        name: 'password hashing',
        concurrency: config.ARGON2_CONCURRENCY,
        maxWaiting: config.ARGON2_MAX_WAITING,
        maxWaitMs: config.ARGON2_MAX_WAIT_MS,
      }),
    }),
    mailer: createMailer(config, logger),
    sms: createSms(config, logger),
    links: new RecoveryLinks(config.PUBLIC_WEB_URL),
    limiter: new RateLimiter(s.windows),
    grants: new Grants(s.values),
  };
}
type Basics = ReturnType<typeof basics>;

/** The limits on guesses at an account's secrets, and the owner's alerts when one is reached. */
function guards(config: AuthConfig, { logger }: Parts, s: Stores, b: Basics) {
  const alerts = new SecurityAlerts(b.mailer, b.links, logger);
  const windowOf = (seconds: number) => seconds * 1000;
  const guesses = new GuessLimits(
    s.windows,
    {
      'second-factor': {
        name: 'mfa-failures:account',
        limit: config.MFA_FAILURES_PER_ACCOUNT,
        windowMs: windowOf(config.MFA_FAILURE_WINDOW_SECONDS),
      },
      password: {
        name: 'password-failures:account',
        limit: config.PASSWORD_FAILURES_PER_ACCOUNT,
        windowMs: windowOf(config.PASSWORD_FAILURE_WINDOW_SECONDS),
      },
    },
    alerts,
  );
  const logins = new LoginLimits(
    s.windows,
    s.backoffs,
    s.knownSources,
    {
      perIp: config.LOGIN_FAILURES_PER_IP,
      ipWindowMs: windowOf(config.LOGIN_FAILURE_WINDOW_SECONDS),
      perSource: config.LOGIN_FAILURES_PER_SOURCE,
      perAccount: config.LOGIN_FAILURES_PER_ACCOUNT,
      baseDelayMs: windowOf(config.LOGIN_LOCKOUT_BASE_SECONDS),
      maxDelayMs: windowOf(config.LOGIN_LOCKOUT_MAX_SECONDS),
    },
    alerts,
  );
  return { guesses, logins };
}
type Guards = ReturnType<typeof guards>;

/** Second factors: TOTP and backup codes, SMS codes, security keys, tickets and elevation. */
function factors(config: AuthConfig, { ids, logger }: Parts, s: Stores, b: Basics, g: Guards) {
  const mfa = new MfaService({ store: s.mfa, steps: s.totpSteps, passwords: b.passwords, users: s.users, guesses: g.guesses });
  const tickets = new Tickets(s.tickets, { ttlSeconds: config.MFA_TICKET_TTL_SECONDS, maxAttempts: config.MFA_TICKET_MAX_ATTEMPTS });
  const smsCodes = new SmsCodes({ tickets, users: mfa, codes: s.values, limiter: b.limiter, sms: b.sms, logger });
  const webauthn = new WebAuthn({
    store: s.webauthn,
    values: s.values,
    ids: { next: () => String(ids.next()) },
    users: mfa,
    rp: { id: config.WEBAUTHN_RP_ID, name: config.WEBAUTHN_RP_NAME, origins: config.WEBAUTHN_ORIGINS.split(',').map((o) => o.trim()) },
  });
  const elevationKey = config.MFA_ELEVATION_KEY ? Buffer.from(config.MFA_ELEVATION_KEY) : randomBytes(32);
  const elevation = new ElevationGuard(new ElevationTokens(elevationKey), tickets, mfa, smsCodes, webauthn);
  const restore = (userId: string) => s.accounts.restore(userId);
  // Every way into a session asks the account's standing: password, second factor, passkey, one-time login.
  const standing = new StandingService(s.standing, s.values, { next: () => String(ids.next()) });
  const loginMfa = new LoginMfa({ mfa, tickets, sessions: b.sessions, restore, sms: smsCodes, webauthn, standing });
  return { mfa, tickets, smsCodes, webauthn, elevation, loginMfa, restore, standing };
}
type Factors = ReturnType<typeof factors>;

/** Registration, login and its helpers. */
function entry({ ids, logger }: Parts, s: Stores, b: Basics, g: Guards, f: Factors, invites: InviteRedeemer) {
  const phones = new PhoneVerificationService(s.values, b.limiter, b.sms, logger, (phone) => s.recovery.isBlacklisted(phone));
  const fingerprints = new FingerprintsService(s.values, ids, b.limiter);
  const locations = new LoginLocations(s.recovery, b.grants, b.mailer, b.links, logger, phones);
  const standing = f.standing;
  const extensions = { challenge: f.loginMfa.challenge.bind(f.loginMfa), restore: f.restore, limits: g.logins, locations, standing };
  const gate = new RegistrationGate(phones, fingerprints);
  const accounts = new AccountsService(s.users, b.sessions, b.passwords, ids, extensions, gate, invites);
  const usernames = new UsernamesService(s.users, (basis) => accounts.suggestUsername(basis));
  return { phones, fingerprints, locations, accounts, usernames, standing, handoff: new HandoffService(s.values, s.users, b.sessions) };
}
type Entry = ReturnType<typeof entry>;

function recovery(config: AuthConfig, { logger }: Parts, s: Stores, b: Basics, g: Guards, f: Factors, e: Entry) {
  const window = config.FORGOT_WINDOW_SECONDS * 1000;
  return new RecoveryService({
    ...b,
    users: s.users,
    store: s.recovery,
    mfa: f.mfa,
    tickets: f.tickets,
    smsCodes: f.smsCodes,
    webauthn: f.webauthn,
    locations: e.locations,
    standing: e.standing,
    lockouts: g.logins,
    log: logger,
    phones: e.phones,
    forgotLimits: {
      perLogin: { name: 'forgot:login', limit: config.FORGOT_PER_LOGIN, windowMs: window },
      perIp: { name: 'forgot:ip', limit: config.FORGOT_PER_IP, windowMs: window },
    },
  });
}

/** Builds the auth service's parts from its config and the platform's shared ones. */
export function wireAuth(config: AuthConfig, parts: Parts): ServiceWiring {
  const s = stores(parts);
  const b = basics(config, parts, s);
  const g = guards(config, parts, s, b);
  const f = factors(config, parts, s, b, g);
  const invitesClient = createClient(InvitesService, config.INVITES_GRPC_ADDR);
  const e = entry(parts, s, b, g, f, new GrpcInviteRedeemer(invitesClient, parts.logger));
  const r = recovery(config, parts, s, b, g, f, e);
  const changes = new AccountChangesService(s.users, s.accounts, b.passwords, f.mfa, f.elevation, b.sessions, (before) =>
    r.emailChanged(before),
  );
  const settings = new SettingsService(s.settings);
  const devices = new DevicesService(s.devices);
  return {
    routes: (app) => {
      registrationRoutes(app, { usernames: e.usernames, phones: e.phones, fingerprints: e.fingerprints });
      handoffRoutes(app, e.handoff);
      authRoutes(app, e.accounts, b.sessions);
      devicesRoutes(app, devices);
      const verifier =
        config.K_ID_API_URL && config.K_ID_API_KEY
          ? new KidAgeVerifier({
              baseUrl: config.K_ID_API_URL,
              apiKey: config.K_ID_API_KEY,
              jurisdiction: config.AGE_VERIFICATION_JURISDICTION,
            })
          : undefined;
      safetyHubRoutes(app, e.standing, s.users, new AgeVerificationService(verifier, s.values));
      settingsRoutes(app, settings);
      const passwordless = new PasswordlessLogin({ webauthn: f.webauthn, users: f.mfa, sessions: b.sessions, standing: f.standing });
      webauthnRoutes(app, { webauthn: f.webauthn, guard: f.elevation, passwordless });
      mfaRoutes(app, new MfaEnrollment(f.mfa, f.elevation, b.sessions), f.loginMfa, f.elevation);
      accountRoutes(app, changes);
      recoveryRoutes(app, r, e.locations);
      phoneRoutes(app, new SmsEnrollment(f.mfa, f.elevation, e.phones, s.sms), f.smsCodes);
      // The platform's 429 for every limit above (login failures, guesses, SMS sends).
      app.use(rateLimited);
    },
    closers: [() => b.mailer.close(), async () => invitesClient.close()],
    grpc: (server) => {
      addService(
        server,
        AuthService,
        authGrpc(
          b.sessions,
          new UserDirectory(s.users),
          settings,
          f.elevation,
          devices,
          e.standing,
          { users: new BotUsers(s.users, parts.ids), tokens: new BotTokens(s.users, b.sessions) },
          s.accounts,
          new ContactsService(new ContactsStore(parts.db)),
        ),
        parts.logger,
      );
      return [AuthService.typeName];
    },
  };
}
