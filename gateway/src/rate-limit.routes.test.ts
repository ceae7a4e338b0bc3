import { describe, expect, it } from 'vitest';
import { LimitRoutes, compileRoute } from './rate-limit.routes.js';
import { LIMIT_RULES, type LimitRule } from './rate-limit.table.js';
import { ROUTES } from './routes.table.js';

const rule = (bucket: string, routes: string[], per: LimitRule['per'] = 'caller'): LimitRule => ({
  bucket,
  routes,
  limit: 1,
  windowS: 1,
  per,
});

describe('compileRoute', () => {
  it('when a template has parameters and a trailing /**, then it matches the route, a trailing slash and what is below', () => {
    const { method, pattern } = compileRoute('get /invites/{code}/**');
    expect(method).toBe('GET');
    for (const path of ['/invites/abc', '/invites/abc/', '/invites/abc/target-users', '/invites/abc/target-users/job-status'])
      expect(pattern.test(path), path).toBe(true);
    for (const path of ['/invites', '/invites/', '/invitesx/abc']) expect(pattern.test(path), path).toBe(false);
  });

  it('when a template is not METHOD /path or has ** inside, then it is refused', () => {
    expect(() => compileRoute('/auth/login')).toThrow();
    expect(() => compileRoute('GET /a/**/b')).toThrow();
  });
});

describe('LimitRoutes', () => {
  const routes = new LimitRoutes([
    rule('friends', ['POST /users/@me/relationships', 'PUT /users/@me/relationships/{user}']),
    rule('friends.source', ['POST /users/@me/relationships', 'PUT /users/@me/relationships/{user}'], 'source'),
    rule('channel', ['PATCH /channels/{channel}']),
    rule('roles', ['POST /guilds/{guild}/roles']),
    rule('webhook', ['* /webhooks/{webhook}/{token}/**'], 'webhook'),
  ]);

  it('when a request falls under several rules, then each is named once, in table order', () => {
    expect(routes.match('POST', '/users/@me/relationships').map((m) => m.rule.bucket)).toEqual(['friends', 'friends.source']);
    expect(routes.match('PUT', '/users/@me/relationships/123').map((m) => m.rule.bucket)).toEqual(['friends', 'friends.source']);
    expect(routes.match('GET', '/users/@me/relationships')).toEqual([]);
    expect(routes.match('DELETE', '/users/@me/relationships/123')).toEqual([]);
  });

  it('when a route has a major parameter, then each guild, channel and webhook token is a count of its own', () => {
    expect(routes.match('PATCH', '/channels/42')[0]!.major).toBe('c:42');
    expect(routes.match('POST', '/guilds/7/roles')[0]!.major).toBe('g:7');
    const a = routes.match('POST', '/webhooks/9/token-a')[0]!.major;
    const b = routes.match('GET', '/webhooks/9/token-b/messages/1')[0]!.major;
    expect(a).toMatch(/^w:9:[\w-]{16}$/);
    expect(b).toMatch(/^w:9:[\w-]{16}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('token-a');
    expect(routes.match('POST', '/users/@me/relationships')[0]!.major).toBe('');
  });

  it('when a path only looks like a limited one, then no rule applies', () => {
    expect(routes.match('GET', '/webhooks/9')).toEqual([]);
    expect(routes.match('POST', '/guilds/7/roles/8')).toEqual([]);
    expect(routes.match('PATCH', '/channels/42/permissions/1')).toEqual([]);
  });
});

describe('the rate limit table', () => {
  it('when compiled, then every route parses and every bucket has a positive limit and window', () => {
    expect(() => new LimitRoutes(LIMIT_RULES)).not.toThrow();
    for (const r of LIMIT_RULES) {
      expect(r.limit, r.bucket).toBeGreaterThan(0);
      expect(r.windowS, r.bucket).toBeGreaterThan(0);
    }
  });

  it('when a table route is sent through the edge, then it reaches a service of the routing table', () => {
    for (const r of LIMIT_RULES)
      for (const route of r.routes) {
        const path = route
          .split(' ')[1]!
          .replace('/**', '')
          .replace(/\{[a-z]+\}/g, '123');
        expect(
          ROUTES.some(([pattern]) => pattern.test(path)),
          route,
        ).toBe(true);
      }
  });
});
