/** The services behind the edge. */
export type ServiceName = 'auth' | 'social' | 'invites' | 'guilds' | 'integrations' | 'billing' | 'webhooks' | 'realtime';

/**
 * Path group → owning service, most specific first (ARCHITECTURE.md). Paths are unversioned:
 * `/api/v9/users/@me` is matched as `/users/@me`. `{id}` segments are snowflakes.
 */
export const ROUTES: ReadonlyArray<readonly [RegExp, ServiceName]> = [
  [/^\/users\/@me\/guilds\/premium(\/|$)/, 'billing'],
  [/^\/users\/@me\/guilds\/integration-application-ids\/?$/, 'integrations'],
  // Contact sync feeds friend suggestions and bulk add: social's, like them.
  [/^\/users\/@me\/connections\/contacts(\/|$)/, 'social'],
  [/^\/users\/@me\/connections(\/|$)/, 'integrations'],
  [/^\/users\/@me\/guilds(\/|$)/, 'guilds'],
  [/^\/users\/@me\/channels(\/|$)/, 'guilds'],
  [/^\/users\/@me\/(relationships|game-relationships)(\/|$)/, 'social'],
  [/^\/friend-suggestions(\/|$)/, 'social'],
  // Other users by id and their profiles: social holds what decides who may see one (friends,
  // suggestions, requests) and already asks auth for users and guilds for mutual guilds.
  [/^\/users\/\d+(\/profile)?\/?$/, 'social'],
  [/^\/users\/@me\/billing(\/|$)/, 'billing'],
  [/^\/store(\/|$)/, 'billing'],
  [/^\/users\/@me\/invites(\/|$)/, 'invites'],
  [/^\/users\/@me(\/(mfa(\/.*)?|disable|delete|settings|phone|devices|email(\/.*)?))?\/?$/, 'auth'],
  [/^\/(auth|mfa|unique-username|phone-verifications)(\/|$)/, 'auth'],
  [/^\/experiments\/?$/, 'auth'],
  [/^\/safety-hub(\/|$)/, 'auth'],
  [/^\/invites(\/|$)/, 'invites'],
  [/^\/(guilds|channels)\/\d+\/invites(\/|$)/, 'invites'],
  [/^\/(guilds|channels)\/\d+\/integrations(\/|$)/, 'integrations'],
  [/^\/guilds\/\d+\/migrate-command-scope\/?$/, 'integrations'],
  [/^\/guilds\/\d+\/premium(\/|$)/, 'billing'],
  [/^\/(guilds|channels)\/\d+\/webhooks(\/|$)/, 'webhooks'],
  // Follow Channel makes a webhook in the follower's channel.
  [/^\/channels\/\d+\/followers\/?$/, 'webhooks'],
  [/^\/(integrations|gifs)(\/|$)/, 'integrations'],
  [/^\/(applications|oauth2|connections)(\/|$)/, 'integrations'],
  // Application icons (the platform's CDN path), from integrations' store.
  [/^\/app-icons\/\d+\/[^/]+$/, 'integrations'],
  [/^\/webhooks(\/|$)/, 'webhooks'],
  // The files of webhook messages (`/attachments/<channel>/<id>/<name>`), from webhooks' object store.
  [/^\/attachments\/\d+\/\d+\/[^/]+$/, 'webhooks'],
  [/^\/(guilds|channels)(\/|$)/, 'guilds'],
  [/^\/gateway(\/bot)?\/?$/, 'realtime'],
];

export function serviceFor(path: string): ServiceName | undefined {
  for (const [pattern, service] of ROUTES) if (pattern.test(path)) return service;
  return undefined;
}

/** `/api/v9/x`, `/api/v10/x` and `/api/x` → `/x`; anything else (`/api/v8/x` too) is not an API path. */
export function stripVersion(path: string): string | undefined {
  const match = /^\/api(\/v\d+)?(\/.*)?$/.exec(path);
  if (!match) return undefined;
  // Another version number is not the unversioned `/api` with a path that happens to start `/v8`.
  if (match[1] !== undefined && match[1] !== '/v9' && match[1] !== '/v10') return undefined;
  return match[2] ?? '/';
}
