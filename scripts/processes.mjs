import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * PostgreSQL connections one whole stack may hold at once: a third of the server's default
 * `max_connections` (100), so three stacks (or one with three replicas of everything) fit on one
 * server beside its superuser reserve.
 */
export const POSTGRES_CONNECTION_BUDGET = 33;
/** Kept back from the shares: the admin connection a starting service opens for a moment to create its database. */
export const POSTGRES_STARTUP_RESERVE = 1;
/** The least a database-owning process can run with: one pooled connection and the outbox listener's. */
const MIN_SHARE = 2;

/** The key auth presents to the development k-ID stand-in, which checks it as k-ID checks a product's. */
const DEV_K_ID_API_KEY = 'kith-development-k-id';

// The processes of the whole system and their ports: one place for `npm start`, the end-to-end
// tests and the benchmark. Port offset lets a second stack run beside the first.
//
// PostgreSQL: every process owns a database and gets a share of POSTGRES_CONNECTION_BUDGET as its
// DB_CONNECTIONS (the platform's pool takes all but one, which the outbox listener keeps), weight 1
// unless it says `postgres: <weight>`; one that opens no database says `postgres: 0` (development
// stand-ins, `devOnly`, open none). A new
// service adds nothing: it gets its share, and the others' shrink so the stack still fits.
export function processes(offset = 0, dbPrefix = process.env.DB_PREFIX ?? 'kith') {
  const port = (p) => String(p + offset);
  const host = '127.0.0.1';
  // Each stack's Redis keys follow its database prefix, so two stacks on one Redis (a hand-started
  // one and the end-to-end tests, or two checkouts) never read each other's keys.
  const redisPrefix = (name) => `${dbPrefix}:${name}:`;
  return withPostgresShares(
    withRedisPrefixes(redisPrefix, [
      {
        // Local development age-verification provider speaking k-ID's API (see services/auth/src/dev).
        name: 'age-verifier',
        dir: 'services/auth',
        entry: 'dist/dev/kid.main.js',
        // A stand-in for an outside provider: no image, no production deployment.
        devOnly: true,
        env: { K_ID_PORT: port(8114), K_ID_API_KEY: DEV_K_ID_API_KEY },
        readyUrl: `http://${host}:${port(8114)}/healthz`,
      },
      {
        name: 'auth',
        dir: 'services/auth',
        // Twice the others': every request's token check at the edge reads auth's sessions.
        postgres: 2,
        env: {
          HTTP_PORT: port(8101),
          GRPC_PORT: port(50051),
          INVITES_GRPC_ADDR: `${host}:${port(50053)}`,
          // Suspended users' age verification goes to the local stand-in (production sets k-ID's).
          K_ID_API_URL: `http://${host}:${port(8114)}`,
          K_ID_API_KEY: DEV_K_ID_API_KEY,
        },
        readyUrl: `http://${host}:${port(8101)}/readyz`,
      },
      {
        name: 'social',
        dir: 'services/social',
        env: {
          HTTP_PORT: port(8102),
          GRPC_PORT: port(50052),
          AUTH_GRPC_ADDR: `${host}:${port(50051)}`,
          GUILDS_GRPC_ADDR: `${host}:${port(50054)}`,
        },
        readyUrl: `http://${host}:${port(8102)}/readyz`,
      },
      {
        name: 'guilds',
        dir: 'services/guilds',
        env: { HTTP_PORT: port(8104), GRPC_PORT: port(50054), AUTH_GRPC_ADDR: `${host}:${port(50051)}` },
        readyUrl: `http://${host}:${port(8104)}/readyz`,
      },
      {
        name: 'invites',
        dir: 'services/invites',
        env: {
          HTTP_PORT: port(8103),
          GRPC_PORT: port(50053),
          AUTH_GRPC_ADDR: `${host}:${port(50051)}`,
          SOCIAL_GRPC_ADDR: `${host}:${port(50052)}`,
          GUILDS_GRPC_ADDR: `${host}:${port(50054)}`,
        },
        readyUrl: `http://${host}:${port(8103)}/readyz`,
      },
      {
        // Local development GIF providers and streaming platforms (see services/integrations/src/dev).
        name: 'providers',
        dir: 'services/integrations',
        entry: 'dist/dev/providers.main.js',
        // A stand-in for outside providers: no image, no production deployment (the deploy check and
        // the README's settings table skip it; compose and the dev overlay run it as a dev tool).
        devOnly: true,
        env: { GIF_PROVIDERS_PORT: port(8111) },
        readyUrl: `http://${host}:${port(8111)}/healthz`,
      },
      {
        name: 'integrations',
        dir: 'services/integrations',
        env: {
          HTTP_PORT: port(8105),
          GRPC_PORT: port(50055),
          AUTH_GRPC_ADDR: `${host}:${port(50051)}`,
          SOCIAL_GRPC_ADDR: `${host}:${port(50052)}`,
          GUILDS_GRPC_ADDR: `${host}:${port(50054)}`,
          WEBHOOKS_GRPC_ADDR: `${host}:${port(50057)}`,
          TENOR_API_URL: `http://${host}:${port(8111)}`,
          GIPHY_API_URL: `http://${host}:${port(8111)}`,
          KLIPY_API_URL: `http://${host}:${port(8111)}`,
          TWITCH_API_URL: `http://${host}:${port(8111)}`,
          TWITCH_AUTH_URL: `http://${host}:${port(8111)}`,
          YOUTUBE_API_URL: `http://${host}:${port(8111)}`,
          GOOGLE_ACCOUNTS_URL: `http://${host}:${port(8111)}`,
          GOOGLE_TOKEN_URL: `http://${host}:${port(8111)}`,
          OAUTH2_AUTHORIZED_URL: `http://${host}:${port(8080)}/oauth2/authorized`,
          CONNECTIONS_REDIRECT_URL: `http://${host}:${port(8080)}/connections`,
        },
        readyUrl: `http://${host}:${port(8105)}/readyz`,
      },
      {
        // Local development payment gateway speaking Stripe's API (see services/billing/src/dev).
        name: 'payment-gateway',
        dir: 'services/billing',
        entry: 'dist/dev/stripe.main.js',
        // A stand-in for an outside provider: no image, no production deployment.
        devOnly: true,
        env: { PAYMENT_GATEWAY_PORT: port(8113) },
        readyUrl: `http://${host}:${port(8113)}/healthz`,
      },
      {
        name: 'billing',
        dir: 'services/billing',
        env: {
          HTTP_PORT: port(8106),
          GRPC_PORT: port(50056),
          AUTH_GRPC_ADDR: `${host}:${port(50051)}`,
          GUILDS_GRPC_ADDR: `${host}:${port(50054)}`,
          STRIPE_API_URL: `http://${host}:${port(8113)}`,
        },
        readyUrl: `http://${host}:${port(8106)}/readyz`,
      },
      {
        name: 'webhooks',
        dir: 'services/webhooks',
        env: {
          HTTP_PORT: port(8107),
          GRPC_PORT: port(50057),
          AUTH_GRPC_ADDR: `${host}:${port(50051)}`,
          GUILDS_GRPC_ADDR: `${host}:${port(50054)}`,
          // A development stack's tokens are sealed with a key of its own (a deployment sets one from
          // its secrets): stable across restarts of the stack, so the tokens it showed stay readable.
          WEBHOOK_TOKEN_KEY:
            process.env.WEBHOOK_TOKEN_KEY ?? createHash('sha256').update(`kith-development-webhooks:${dbPrefix}`).digest('base64'),
          PUBLIC_API_URL: `http://${host}:${port(8080)}/api`,
          PUBLIC_CDN_URL: `http://${host}:${port(8080)}`,
          // Attachments on disk (no object store to run): one directory per stack.
          ATTACHMENTS_DIR: join(tmpdir(), `kith-attachments-${dbPrefix}`),
        },
        readyUrl: `http://${host}:${port(8107)}/readyz`,
      },
      {
        name: 'realtime',
        dir: 'services/realtime',
        postgres: 0,
        env: {
          HTTP_PORT: port(8108),
          AUTH_GRPC_ADDR: `${host}:${port(50051)}`,
          SOCIAL_GRPC_ADDR: `${host}:${port(50052)}`,
          GUILDS_GRPC_ADDR: `${host}:${port(50054)}`,
          // Clients reach the socket through the edge.
          PUBLIC_GATEWAY_URL: `ws://${host}:${port(8080)}/gateway`,
        },
        readyUrl: `http://${host}:${port(8108)}/readyz`,
      },
      {
        name: 'gateway',
        dir: 'gateway',
        postgres: 0,
        env: {
          PORT: port(8080),
          AUTH_HTTP_URL: `http://${host}:${port(8101)}`,
          AUTH_GRPC_ADDR: `${host}:${port(50051)}`,
          REALTIME_HTTP_URL: `http://${host}:${port(8108)}`,
          SOCIAL_HTTP_URL: `http://${host}:${port(8102)}`,
          GUILDS_HTTP_URL: `http://${host}:${port(8104)}`,
          INVITES_HTTP_URL: `http://${host}:${port(8103)}`,
          INTEGRATIONS_HTTP_URL: `http://${host}:${port(8105)}`,
          BILLING_HTTP_URL: `http://${host}:${port(8106)}`,
          WEBHOOKS_HTTP_URL: `http://${host}:${port(8107)}`,
        },
        readyUrl: `http://${host}:${port(8080)}/readyz`,
        baseUrl: `http://${host}:${port(8080)}/api/v9`,
      },
    ]),
  );
}

/**
 * Each database-owning process's DB_CONNECTIONS: its weight's part of the budget (less the startup
 * reserve), rounded down, so the stack's sum never passes the budget. Throws when the stack has
 * grown past what the budget can give each process its minimum: raise the budget deliberately.
 */
export function withPostgresShares(list, budget = POSTGRES_CONNECTION_BUDGET) {
  const weightOf = (p) => p.postgres ?? (p.devOnly ? 0 : 1);
  const total = list.reduce((sum, p) => sum + weightOf(p), 0);
  const spendable = budget - POSTGRES_STARTUP_RESERVE;
  return list.map((p) => {
    const weight = weightOf(p);
    if (weight === 0) return p;
    const share = Math.floor((spendable * weight) / total);
    if (share < MIN_SHARE) throw new Error(`PostgreSQL budget of ${budget} connections cannot give ${p.name} ${MIN_SHARE}`);
    return { ...p, env: { DB_CONNECTIONS: String(share), ...p.env } };
  });
}

function withRedisPrefixes(redisPrefix, list) {
  return list.map((p) => ({ ...p, env: { REDIS_PREFIX: redisPrefix(p.name), ...p.env } }));
}

/** The processes that ship as images and deploy (all but development stand-ins). */
export const deployedProcesses = () => processes().filter((p) => !p.devOnly);

// `node scripts/processes.mjs` prints the names of the deployed processes, one a line: the one
// list images are built from (deploy/k8s/README.md's build loop; scripts/check-deploy.mjs).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const p of deployedProcesses()) process.stdout.write(`${p.name}\n`);
}
