/**
 * Every rate limit of the API, in one table: what the edge counts before a request reaches a
 * service. A service does not declare its own: a route that needs a limit gets a row here, by
 * path template, whether or not its service is deployed yet.
 *
 * Routes are `METHOD /path` (`*` for any method), unversioned and decoded as the edge routes them.
 * `{guild}`, `{channel}` and `{webhook}` (with `{token}`) are the major parameters: each value
 * has a count of its own. Other `{…}` segments match one path segment; a trailing `/**` matches
 * the route and anything below it.
 *
 * Whose requests share a count (`per`):
 * - `caller`: the signed-in user (the address when anonymous), per major parameter;
 * - `source`: the client's address, signed in or not (what one machine may do: registrations,
 *   username checks, friend requests);
 * - `webhook`: the webhook itself, whoever calls it with its token (the platform's "shared" scope).
 *
 * A request may match several rows (one per caller and one per source, say): each is counted, the
 * first one's numbers are the X-RateLimit-* headers unless another refused the request. A request
 * that matches no row counts only against the global limit, whose numbers it then carries.
 */

export type LimitScope = 'caller' | 'source' | 'webhook';

export interface LimitRule {
  /** The bucket's name; clients see a hash of it as X-RateLimit-Bucket. */
  bucket: string;
  routes: readonly string[];
  /** Requests allowed per window. */
  limit: number;
  windowS: number;
  per: LimitScope;
}

/** Requests per second of one token (one session), or of one address without a token, across the API. */
export const GLOBAL_LIMIT = { bucket: 'global', limit: 50, windowS: 1 } as const;

/**
 * Invalid requests (answered 401, 403 or 429) one address may make in the window before it is
 * refused everything for `blockS`: the platform's 10,000 per 10 minutes.
 */
export const INVALID_LIMIT = { bucket: 'invalid', limit: 10_000, windowS: 600, blockS: 600 } as const;

const minute = 60;
const hour = 3600;

export const LIMIT_RULES: readonly LimitRule[] = [
  // Accounts: what an address may do before anyone is signed in.
  { bucket: 'auth.register', routes: ['POST /auth/register', 'POST /auth/register/phone'], limit: 5, windowS: 10 * minute, per: 'source' },
  {
    bucket: 'auth.login',
    routes: ['POST /auth/login', 'POST /auth/conditional/start', 'POST /auth/conditional/finish', 'POST /auth/handoff/exchange'],
    limit: 10,
    windowS: minute,
    per: 'source',
  },
  {
    bucket: 'auth.mfa',
    routes: ['POST /auth/mfa/{type}', 'POST /auth/mfa/sms/send', 'POST /mfa/finish'],
    limit: 10,
    windowS: minute,
    per: 'source',
  },
  {
    bucket: 'auth.recovery',
    routes: [
      'POST /auth/forgot',
      'POST /auth/reset',
      'POST /auth/one-time-login',
      'POST /auth/revert',
      'POST /auth/authorize-ip',
      'POST /auth/verify',
      'POST /auth/verify/resend',
    ],
    limit: 5,
    windowS: minute,
    per: 'source',
  },
  { bucket: 'phone.verify', routes: ['POST /phone-verifications/**', 'POST /users/@me/phone'], limit: 5, windowS: minute, per: 'source' },
  {
    bucket: 'username.check',
    routes: ['POST /unique-username/username-attempt-unauthed', 'GET /unique-username/username-suggestions-unauthed'],
    limit: 10,
    windowS: 10,
    per: 'source',
  },
  { bucket: 'users.me.patch', routes: ['PATCH /users/@me'], limit: 5, windowS: minute, per: 'caller' },

  // Relationships: friend requests per user and per address.
  {
    bucket: 'relationships.add',
    routes: ['POST /users/@me/relationships', 'PUT /users/@me/relationships/{user}'],
    limit: 10,
    windowS: 10,
    per: 'caller',
  },
  {
    bucket: 'relationships.add.source',
    routes: ['POST /users/@me/relationships', 'PUT /users/@me/relationships/{user}'],
    limit: 30,
    windowS: minute,
    per: 'source',
  },
  { bucket: 'relationships.bulk', routes: ['POST /users/@me/relationships/bulk'], limit: 2, windowS: minute, per: 'caller' },
  {
    bucket: 'game-relationships.add',
    routes: ['POST /users/@me/game-relationships', 'PUT /users/@me/game-relationships/{user}/**'],
    limit: 10,
    windowS: 10,
    per: 'caller',
  },

  // Guilds and channels.
  { bucket: 'guilds.create', routes: ['POST /guilds'], limit: 10, windowS: hour, per: 'caller' },
  { bucket: 'guilds.channels.create', routes: ['POST /guilds/{guild}/channels'], limit: 10, windowS: 10, per: 'caller' },
  { bucket: 'guilds.roles.create', routes: ['POST /guilds/{guild}/roles'], limit: 10, windowS: 10, per: 'caller' },
  { bucket: 'guilds.members.me', routes: ['PATCH /guilds/{guild}/members/@me'], limit: 5, windowS: 5, per: 'caller' },
  { bucket: 'channels.dm.create', routes: ['POST /users/@me/channels'], limit: 10, windowS: 10, per: 'caller' },
  { bucket: 'channels.patch', routes: ['PATCH /channels/{channel}'], limit: 5, windowS: 5, per: 'caller' },
  { bucket: 'channels.threads.create', routes: ['POST /channels/{channel}/threads'], limit: 5, windowS: 5, per: 'caller' },

  // Invites.
  { bucket: 'invites.create', routes: ['POST /channels/{channel}/invites'], limit: 5, windowS: 5, per: 'caller' },
  { bucket: 'invites.accept', routes: ['POST /invites/{code}'], limit: 5, windowS: minute, per: 'caller' },
  { bucket: 'invites.get', routes: ['GET /invites/{code}/**'], limit: 30, windowS: 10, per: 'caller' },
  { bucket: 'invites.friend.create', routes: ['POST /users/@me/invites'], limit: 5, windowS: minute, per: 'caller' },
  { bucket: 'invites.target-users', routes: ['PUT /invites/{code}/target-users'], limit: 2, windowS: minute, per: 'caller' },

  // Webhooks: executing one is limited per webhook, whoever holds its token.
  { bucket: 'webhooks.create', routes: ['POST /channels/{channel}/webhooks'], limit: 5, windowS: 10, per: 'caller' },
  { bucket: 'webhooks.token', routes: ['* /webhooks/{webhook}/{token}/**'], limit: 5, windowS: 2, per: 'webhook' },

  // Integrations and GIFs.
  { bucket: 'integrations.create', routes: ['POST /guilds/{guild}/integrations'], limit: 5, windowS: 10, per: 'caller' },
  {
    bucket: 'integrations.sync',
    routes: ['POST /guilds/{guild}/integrations/{integration}/sync'],
    limit: 2,
    windowS: minute,
    per: 'caller',
  },
  // Every application made is a bot user made.
  { bucket: 'applications.create', routes: ['POST /applications'], limit: 5, windowS: minute, per: 'caller' },
  { bucket: 'integrations.join', routes: ['POST /integrations/{integration}/join'], limit: 5, windowS: minute, per: 'caller' },
  {
    bucket: 'gifs',
    routes: ['GET /gifs/**', 'POST /gifs/select', 'GET /integrations/{provider}/search'],
    limit: 20,
    windowS: 5,
    per: 'caller',
  },

  // Billing: every charge is a call to the payment gateway.
  {
    bucket: 'billing.charge',
    routes: [
      'POST /users/@me/billing/subscriptions',
      'POST /users/@me/billing/subscriptions/{subscription}/invoices/{invoice}/pay',
      'POST /users/@me/billing/payment-sources',
    ],
    limit: 3,
    windowS: minute,
    per: 'caller',
  },
  {
    bucket: 'billing.preview',
    routes: ['POST /users/@me/billing/subscriptions/preview', 'PATCH /users/@me/billing/subscriptions/{subscription}/preview'],
    limit: 10,
    windowS: 10,
    per: 'caller',
  },
  {
    bucket: 'billing.boosts',
    routes: ['POST /users/@me/guilds/premium/subscription-slots/{slot}/**', 'PUT /guilds/{guild}/premium/subscriptions'],
    limit: 5,
    windowS: minute,
    per: 'caller',
  },
];
