import { z } from 'zod';
import { configKeys, loadConfig, serviceConfig } from '@kith/platform';

const httpUrl = configKeys.url(['http:', 'https:']);

export const integrationsConfigSchema = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8105),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50055),
  REDIS_PREFIX: z.string().default('kith:integrations:'),
  AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  SOCIAL_GRPC_ADDR: z.string().default('127.0.0.1:50052'),
  GUILDS_GRPC_ADDR: z.string().default('127.0.0.1:50054'),
  /** Where an OAuth2 authorization sends the user's browser once done (the platform's "authorized" page). */
  OAUTH2_AUTHORIZED_URL: httpUrl.default('http://127.0.0.1:8080/oauth2/authorized'),
  /**
   * Streaming platforms: Twitch (Helix and id.twitch.tv) and YouTube (the Data API and Google's
   * OAuth2). The defaults are the local development server, which speaks them over built-in
   * accounts; production sets the real URLs and the application's client id and secret.
   */
  TWITCH_API_URL: httpUrl.default('http://127.0.0.1:8111'),
  TWITCH_AUTH_URL: httpUrl.default('http://127.0.0.1:8111'),
  TWITCH_CLIENT_ID: z.string().min(1).default('kith-development'),
  TWITCH_CLIENT_SECRET: z.string().min(1).default('development'),
  YOUTUBE_API_URL: httpUrl.default('http://127.0.0.1:8111'),
  GOOGLE_ACCOUNTS_URL: httpUrl.default('http://127.0.0.1:8111'),
  GOOGLE_TOKEN_URL: httpUrl.default('http://127.0.0.1:8111'),
  GOOGLE_CLIENT_ID: z.string().min(1).default('kith-development'),
  GOOGLE_CLIENT_SECRET: z.string().min(1).default('development'),
  /** Where the platforms send a user back with the code of a connection (`/<type>/callback` appended). */
  CONNECTIONS_REDIRECT_URL: httpUrl.default('http://127.0.0.1:8080/connections'),
  /** Seals the streaming platforms' tokens at rest (base64 of 32 bytes); unset, a key derived from SERVICE_TOKEN_KEY. */
  CONNECTION_TOKEN_KEY: z.string().optional(),
  /** The webhooks service (its integration cleanup); unset where it is not deployed. */
  WEBHOOKS_GRPC_ADDR: z.string().optional(),

  /**
   * GIF providers. The defaults are the local development server (`npm start` runs it on 8111),
   * which speaks each provider's API with a few built-in GIFs and takes any key; production sets
   * the providers' real base URLs and keys.
   */
  TENOR_API_URL: httpUrl.default('http://127.0.0.1:8111'),
  TENOR_API_KEY: z.string().min(1).default('development'),
  TENOR_CLIENT_KEY: z.string().min(1).default('kith'),
  GIPHY_API_URL: httpUrl.default('http://127.0.0.1:8111'),
  GIPHY_API_KEY: z.string().min(1).default('development'),
  KLIPY_API_URL: httpUrl.default('http://127.0.0.1:8111'),
  KLIPY_API_KEY: z.string().min(1).default('development'),
  /** Where a Klipy GIF's page is (its slug appended). */
  KLIPY_PAGE_URL: httpUrl.default('https://klipy.com/gifs/'),
  /** The one deadline of a provider request, connection to last byte. */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().max(30_000).default(3000),
  GIF_SEARCH_TTL_SECONDS: z.coerce.number().int().positive().default(300),
  GIF_TRENDING_TTL_SECONDS: z.coerce.number().int().positive().default(600),
  /** A rendered guild integration list is dropped on every change of the guild's integrations, and at the latest after this (user names in it). */
  INTEGRATION_LIST_TTL_SECONDS: z.coerce.number().int().positive().default(30),
  /** How often each replica looks for queued integration syncs (requested elsewhere, or due for a retry). */
  SYNC_POLL_MS: z.coerce.number().int().positive().max(60_000).default(1000),
  /** Distinct users who must pick GIFs from a search term on a day before it trends here. */
  GIF_TRENDING_MIN_SELECTIONS: z.coerce.number().int().positive().default(3),
});

export type IntegrationsConfig = z.output<typeof integrationsConfigSchema>;

export const loadIntegrationsConfig = (env?: Record<string, string | undefined>): IntegrationsConfig =>
  loadConfig(integrationsConfigSchema, env);
