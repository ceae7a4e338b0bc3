import { z } from 'zod';
import { baseConfig, configKeys, loadConfig } from '@kith/platform';

const optionalUrl = configKeys.url(['http:', 'https:']).optional();

const rateLimitOverrides = z.record(
  z.string(),
  z.object({ limit: z.number().int().positive().optional(), windowS: z.number().int().positive().optional() }).strict(),
);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const gatewayConfigSchema = z.object({
  ...baseConfig,
  /** The port clients reach. */
  PORT: configKeys.port.default(8080),
  /** The address the edge binds to; 0.0.0.0 in a container. */
  HOST: z.string().default('127.0.0.1'),
  /** The address clients are told to use, for URLs the edge hands out. */
  PUBLIC_URL: z.string().optional(),
  /** Signs the identity forwarded with each request (Ed25519, PKCS8 PEM); its public half goes to every other process. */
  INTERNAL_TOKEN_PRIVATE_KEY: z.string().min(1, 'an Ed25519 private key (PKCS8 PEM) is required'),
  /** Signs the edge's gRPC calls (token checks) as every process of the deployment does. */
  SERVICE_TOKEN_KEY: configKeys.serviceTokenKey,
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Where the rate limits are counted, shared by every replica of the edge. */
  REDIS_URL: configKeys.url(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z.string().default('kith:gateway:'),
  /** `off` only to measure what the limits cost (bench/); production leaves them on. */
  RATE_LIMITING: z.enum(['on', 'off']).default('on'),
  /** Every limit of rate-limit.table.ts multiplied by this: a test stack whose clients all share one address raises it. */
  RATE_LIMITS_SCALE: z.coerce.number().positive().default(1),
  /** JSON: `{"<bucket>": {"limit": n, "windowS": s}}` for buckets of rate-limit.table.ts (`global`, `invalid` too). */
  RATE_LIMIT_OVERRIDES: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const parsed = rateLimitOverrides.safeParse(safeJson(text));
      if (parsed.success) return parsed.data;
      ctx.addIssue({ code: 'custom', message: 'must be JSON like {"auth.login": {"limit": 20, "windowS": 60}}' });
      return z.NEVER;
    }),
  /** host:port of auth's gRPC server (token checks). */
  AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  /** Each service's HTTP base URL; a service left unset is not deployed and its paths answer 404. */
  AUTH_HTTP_URL: optionalUrl.default('http://127.0.0.1:8101'),
  /** The social service's HTTP base URL (see AUTH_HTTP_URL). */
  SOCIAL_HTTP_URL: optionalUrl,
  /** The invites service's HTTP base URL (see AUTH_HTTP_URL). */
  INVITES_HTTP_URL: optionalUrl,
  /** The guilds service's HTTP base URL (see AUTH_HTTP_URL). */
  GUILDS_HTTP_URL: optionalUrl,
  /** The integrations service's HTTP base URL (see AUTH_HTTP_URL). */
  INTEGRATIONS_HTTP_URL: optionalUrl,
  /** The billing service's HTTP base URL (see AUTH_HTTP_URL). */
  BILLING_HTTP_URL: optionalUrl,
  /** The webhooks service's HTTP base URL (see AUTH_HTTP_URL). */
  WEBHOOKS_HTTP_URL: optionalUrl,
  /** The realtime service's HTTP base URL: /gateway WebSocket upgrades go there. */
  REALTIME_HTTP_URL: optionalUrl,
  /** Comma-separated addresses or CIDRs whose X-Forwarded-For is believed. */
  TRUSTED_PROXIES: z.string().default(''),
  /** Comma-separated browser origins allowed with credentials; `*` allows any origin without them. */
  CORS_ORIGINS: z.string().default('*'),
  /**
   * How long auth's answer for a token is trusted while revocations might be missed: before the
   * revocation feed (auth's session events over NATS) is live, and from the moment it is lost
   * until it is back. Should an event be lost, a revoked token still stops within this TTL plus
   * one auth round trip, so it stays well under a second. 0 turns the cache off.
   */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(900).default(800),
  /**
   * How long a valid answer is trusted while the revocation feed is live. Every way a session
   * ends (logout, logout by hash, password change, disable, deletion) commits an
   * AUTH_SESSION_CHANGE to auth's outbox, which the edge hears within milliseconds; the edge that
   * relayed the logout also evicts from auth's answer before the client sees it. The feed counts
   * as lost on a NATS disconnect, a closed subscription or a PING unanswered for 750 ms; then the
   * whole cache is dropped and AUTH_CACHE_TTL_MS applies. Events come from auth's outbox relay
   * through the same NATS, so if auth cannot publish, NATS is down for the edge too. What this
   * TTL does allow: a session ended by editing auth's database by hand, or a session reaching its
   * idle expiry (days), is still accepted for up to this long.
   */
  AUTH_CACHE_FEED_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(60_000),
  /** Token answers kept per edge at most. */
  AUTH_CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(100_000),
  /** How long a service may take to start answering before the edge answers 504. */
  UPSTREAM_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** How long a service's answer may pause mid-body before the edge gives up on it. */
  UPSTREAM_BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Connections the edge keeps to each service at most. */
  UPSTREAM_CONNECTIONS: z.coerce.number().int().positive().default(64),
  /**
   * Requests one client (address) may have in flight to the services at once; more wait their
   * turn. No client holds more than this many connections of a service's pool, whatever it does.
   */
  UPSTREAM_PER_CLIENT: z.coerce.number().int().positive().default(8),
  /** Requests of one client that may wait for a slot; beyond that it is answered 503. */
  UPSTREAM_CLIENT_QUEUE: z.coerce.number().int().positive().default(512),
  /**
   * Bodies up to this size are read in full at the edge before a connection to the service is
   * taken, so a client that sends one slowly holds nothing of the service's. Larger ones stream.
   */
  BODY_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** A request body that sends nothing for this long is answered 408 (Node's own limit is 300 s). */
  BODY_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** A body read in full at the edge must be complete within this. */
  BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * Request bodies above this are refused with 413 before they are forwarded: the platform's
   * largest (a webhook's request, 200 MiB); each service holds its own routes to less.
   */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(200 * 1024 * 1024),
});

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env?: Record<string, string | undefined>): GatewayConfig => loadConfig(gatewayConfigSchema, env);
