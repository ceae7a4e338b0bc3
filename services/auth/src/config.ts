import { z } from 'zod';
import { loadConfig, requiredInProduction, serviceConfig } from '@kith/platform';

/** Twilio's three keys are needed only when texts go through Twilio; then all three are. */
function twilioKeysWhenTwilio(config: { SMS_MODE: string } & Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (config.SMS_MODE !== 'twilio') return;
  for (const key of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'])
    if (!config[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required when SMS_MODE is twilio' });
}

const authConfigFields = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8101),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50051),
  /** Starts every Redis key of the service, so services and stacks sharing a Redis never meet. */
  REDIS_PREFIX: z.string().default('kith:auth:'),
  /** host:port of the invites service's gRPC server (registration with an invite code). */
  INVITES_GRPC_ADDR: z.string().default('127.0.0.1:50053'),
  /** How long a session lives without being used, in days. */
  SESSION_IDLE_DAYS: z.coerce.number().int().positive().default(90),
  /** How often a session's last-used time is written back, at most (it is approximate by design). */
  SESSION_TOUCH_INTERVAL_MS: z.coerce.number().int().nonnegative().default(60_000),
  /** argon2id cost; the defaults are OWASP's minimum for argon2id. */
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(19456).default(19456),
  /** argon2id passes (see ARGON2_MEMORY_KIB). */
  ARGON2_ITERATIONS: z.coerce.number().int().min(2).default(2),
  /**
   * Password hashes and checks (registration, login, every password prompt) computed at once; the
   * rest wait their turn. A surge of them then cannot take every core from the token checks every
   * request needs. About half the cores given to the process.
   */
  ARGON2_CONCURRENCY: z.coerce.number().int().min(1).default(2),
  /** Password hashes that may wait for a turn; one more is answered 503 with Retry-After. */
  ARGON2_MAX_WAITING: z.coerce.number().int().min(0).default(64),
  /** How long a password hash may wait for its turn before it is answered 503 with Retry-After (below the edge's 15 s upstream timeout). */
  ARGON2_MAX_WAIT_MS: z.coerce.number().int().positive().default(10_000),
  /** HMAC key of the 5-minute MFA elevation JWTs; unset, a random one per process (development only: replicas then disagree). */
  MFA_ELEVATION_KEY: z.string().min(32).optional(),
  /** How long an MFA ticket (login or elevation) lives, and how many wrong codes it survives. */
  MFA_TICKET_TTL_SECONDS: z.coerce.number().int().positive().default(300),
  /** Wrong codes an MFA ticket survives (see MFA_TICKET_TTL_SECONDS). */
  MFA_TICKET_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
  /** Failed logins from one network (any logins) within the window, before 429 (checked ahead of the hash). */
  LOGIN_FAILURES_PER_IP: z.coerce.number().int().positive().default(100),
  /** The window LOGIN_FAILURES_PER_IP counts over. */
  LOGIN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().positive().default(300),
  /** Failed logins of one login from one network before delays begin (the owner's own typos count here). */
  LOGIN_FAILURES_PER_SOURCE: z.coerce.number().int().positive().default(5),
  /** Failed logins of one login from networks its account never signed in from, before their delays begin. */
  LOGIN_FAILURES_PER_ACCOUNT: z.coerce.number().int().positive().default(20),
  /** The first login delay past those limits; each next one doubles, up to the maximum. */
  LOGIN_LOCKOUT_BASE_SECONDS: z.coerce.number().int().positive().default(60),
  /** The longest login delay (see LOGIN_LOCKOUT_BASE_SECONDS). */
  LOGIN_LOCKOUT_MAX_SECONDS: z.coerce.number().int().positive().default(3600),
  /** Wrong second factors (codes, keys) per account within the window, over every ticket, before 429 and a mail to the owner. */
  MFA_FAILURES_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  /** The window MFA_FAILURES_PER_ACCOUNT counts over. */
  MFA_FAILURE_WINDOW_SECONDS: z.coerce.number().int().positive().default(3600),
  /** Wrong passwords behind a signed-in session (enrollment, account changes, /mfa/finish) per account, before 429 and a mail. */
  PASSWORD_FAILURES_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  /** The window PASSWORD_FAILURES_PER_ACCOUNT counts over. */
  PASSWORD_FAILURE_WINDOW_SECONDS: z.coerce.number().int().positive().default(3600),
  /** Forgot Password requests per login string and per client address within the window, before 429 (each sends a mail or a text). */
  FORGOT_PER_LOGIN: z.coerce.number().int().positive().default(5),
  /** Forgot Password requests per client address within the window (see FORGOT_PER_LOGIN). */
  FORGOT_PER_IP: z.coerce.number().int().positive().default(30),
  /** The window the Forgot Password limits count over. */
  FORGOT_WINDOW_SECONDS: z.coerce.number().int().positive().default(3600),
  /** WebAuthn relying party: its id (the site's registrable domain), display name, and the origins (comma-separated) clients sign for. */
  WEBAUTHN_RP_ID: z.string().min(1).default('localhost'),
  /** The relying party's display name (see WEBAUTHN_RP_ID). */
  WEBAUTHN_RP_NAME: z.string().min(1).default('Kith'),
  /** Origins (comma-separated) clients sign WebAuthn ceremonies for (see WEBAUTHN_RP_ID). */
  WEBAUTHN_ORIGINS: z.string().min(1).default('http://localhost:8080'),
  /** Sender of every mail. */
  MAIL_FROM: z.string().min(3).default('Kith <no-reply@kith.localhost>'),
  /** The web client the links in mails open (reset, one-time login, authorize-ip, revert). */
  PUBLIC_WEB_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:8080'),
  /** smtp:// or smtps:// server; unset, mails are written to the log instead (development only). */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** `twilio` sends through Twilio's Messages API; `log` writes texts, codes included, to the log (development only). */
  SMS_MODE: z.enum(['log', 'twilio']).default('log'),
  /** Where Twilio's Messages API is (any server speaking it), when SMS_MODE is twilio. */
  TWILIO_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.twilio.com'),
  /** Twilio account, when SMS_MODE is twilio. */
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  /** Twilio credential, when SMS_MODE is twilio. */
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** The sending number (E.164) or messaging service's sender. */
  TWILIO_FROM: z.string().min(1).optional(),
  /**
   * Where k-ID's API is (any server speaking it): suspended users' age verification. Unset, it is
   * unavailable. `npm start` points it at its local stand-in (services/auth/src/dev) on 8114.
   */
  K_ID_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The k-ID product's API key, with K_ID_API_URL. */
  K_ID_API_KEY: z.string().min(1).optional(),
  /** The jurisdiction (ISO 3166) age verifications are judged under. */
  AGE_VERIFICATION_JURISDICTION: z.string().min(2).max(8).default('US'),
});

function kidKeyWithUrl(config: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (config.K_ID_API_URL && !config.K_ID_API_KEY)
    ctx.addIssue({ code: 'custom', path: ['K_ID_API_KEY'], message: 'required with K_ID_API_URL' });
}

export const authConfigSchema = requiredInProduction(authConfigFields.superRefine(twilioKeysWhenTwilio).superRefine(kidKeyWithUrl), {
  MFA_ELEVATION_KEY: 'every replica must check the elevation tokens the others sign',
  SMS_MODE: 'say log or twilio: log writes codes to the log',
  SMTP_URL: 'unset, mails and the links in them are written to the log',
});

export type AuthConfig = z.output<typeof authConfigSchema>;

export const loadAuthConfig = (env?: Record<string, string | undefined>): AuthConfig => loadConfig(authConfigSchema, env);

/** The settings of the operator's command (operator.ts): it calls auth's gRPC as the deployment does. */
export const operatorSettings = z.object({
  SERVICE_TOKEN_KEY: z.string().min(1, 'the deployment’s key is needed to call auth'),
  GRPC_PORT: z.coerce.number().int().positive().default(50051),
  AUTH_GRPC_ADDR: z.string().optional(),
});

/** Reads the operator command's settings, or the list of what is wrong with them. */
export const readOperatorConfig = (env: Record<string, string | undefined> = process.env) => operatorSettings.safeParse(env);
