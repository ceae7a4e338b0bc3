import { describe, expect, it } from 'vitest';
import { ROUTES, serviceFor, stripVersion, type ServiceName } from './routes.table.js';

describe('serviceFor', () => {
  const cases: ReadonlyArray<readonly [string, ServiceName | undefined]> = [
    // auth: its own groups and the account itself
    ['/auth/login', 'auth'],
    ['/auth/register', 'auth'],
    ['/auth/sessions/logout', 'auth'],
    ['/mfa/totp/enable', 'auth'],
    ['/unique-username/username-attempt-unauthed', 'auth'],
    ['/phone-verifications/verify', 'auth'],
    ['/experiments', 'auth'],
    ['/users/@me', 'auth'],
    ['/users/@me/', 'auth'],
    ['/users/@me/mfa/totp/enable', 'auth'],
    ['/users/@me/mfa/sms/disable', 'auth'],
    ['/users/@me/disable', 'auth'],
    ['/users/@me/delete', 'auth'],
    ['/users/@me/devices', 'auth'],
    ['/safety-hub/@me', 'auth'],
    ['/safety-hub/suspended/request-review/1', 'auth'],
    // social
    ['/users/@me/relationships', 'social'],
    ['/users/@me/relationships/123', 'social'],
    ['/users/@me/game-relationships', 'social'],
    ['/users/@me/game-relationships/123/456', 'social'],
    ['/friend-suggestions', 'social'],
    ['/friend-suggestions/123', 'social'],
    ['/users/123', 'social'],
    ['/users/123/profile', 'social'],
    // guilds
    ['/guilds', 'guilds'],
    ['/guilds/1', 'guilds'],
    ['/guilds/1/channels', 'guilds'],
    ['/guilds/1/roles/2', 'guilds'],
    ['/guilds/1/members/2', 'guilds'],
    ['/channels/1', 'guilds'],
    ['/channels/1/permissions/2', 'guilds'],
    ['/users/@me/channels', 'guilds'],
    ['/users/@me/guilds', 'guilds'],
    ['/users/@me/guilds/1', 'guilds'],
    // invites
    ['/invites/abc', 'invites'],
    ['/invites/abc/target-users', 'invites'],
    ['/guilds/1/invites', 'invites'],
    ['/channels/1/invites', 'invites'],
    ['/users/@me/invites', 'invites'],
    // integrations
    ['/guilds/1/integrations', 'integrations'],
    ['/guilds/1/integrations/2', 'integrations'],
    ['/guilds/1/migrate-command-scope', 'integrations'],
    ['/channels/1/integrations', 'integrations'],
    ['/integrations/1', 'integrations'],
    ['/gifs/search', 'integrations'],
    ['/users/@me/guilds/integration-application-ids', 'integrations'],
    ['/applications', 'integrations'],
    ['/applications/1/commands', 'integrations'],
    ['/oauth2/authorize', 'integrations'],
    ['/connections/twitch/callback', 'integrations'],
    ['/users/@me/connections', 'integrations'],
    ['/users/@me/connections/contacts/@me/external-friend-list-entries', 'social'],
    // billing
    ['/users/@me/billing/subscriptions', 'billing'],
    ['/users/@me/guilds/premium/subscription-slots', 'billing'],
    ['/users/@me/guilds/premium/x', 'billing'],
    ['/users/@me/billing/payment-sources', 'billing'],
    ['/store/published-listings/skus/521847234246082599/subscription-plans', 'billing'],
    ['/guilds/123/premium/subscriptions', 'billing'],
    ['/guilds/123/premium/subscriptions/456', 'billing'],
    // webhooks
    ['/channels/1/webhooks', 'webhooks'],
    ['/guilds/1/webhooks', 'webhooks'],
    ['/webhooks/1/secret-token', 'webhooks'],
    ['/channels/1/followers', 'webhooks'],
    ['/attachments/1/2/cat.png', 'webhooks'],
    // realtime
    ['/gateway', 'realtime'],
    ['/gateway/bot', 'realtime'],
    // nobody's
    ['/', undefined],
    ['/nope', undefined],
    ['/users/123/settings', undefined],
    ['/users/abc', undefined],
    ['/users/@meh', undefined],
    ['/authx', undefined],
    ['/v8/users/@me', undefined],
  ];

  it.each(cases)('when the path is %s, then it goes to %s', (path, service) => {
    expect(serviceFor(path)).toBe(service);
  });

  it('when a path is more specific than its group, then the specific rule wins over the group', () => {
    expect(serviceFor('/users/@me/guilds/premium/x')).toBe('billing');
    expect(serviceFor('/users/@me/guilds/integration-application-ids')).toBe('integrations');
    expect(serviceFor('/users/@me/guilds')).toBe('guilds');
    expect(serviceFor('/guilds/1/invites')).toBe('invites');
    expect(serviceFor('/channels/1/webhooks')).toBe('webhooks');
    expect(serviceFor('/guilds/1/integrations')).toBe('integrations');
    expect(serviceFor('/guilds/1')).toBe('guilds');
  });

  it('when a group name is only a prefix of a segment, then it does not match that group', () => {
    expect(serviceFor('/guilds/1/invitesx')).toBe('guilds');
    expect(serviceFor('/users/@me/guilds/premiumx')).toBe('guilds');
    expect(serviceFor('/users/@me/billingx')).toBeUndefined();
    expect(serviceFor('/storex')).toBeUndefined();
    expect(serviceFor('/guilds/123/premiumx')).toBe('guilds');
  });

  it('when the table is read, then every rule is anchored at the start of the path', () => {
    for (const [pattern] of ROUTES) expect(pattern.source.startsWith('^\\/')).toBe(true);
  });
});

describe('stripVersion', () => {
  it.each([
    ['/api/v9/users/@me', '/users/@me'],
    ['/api/v10/users/@me', '/users/@me'],
    ['/api/users/@me', '/users/@me'],
    ['/api/v9/auth/login', '/auth/login'],
    ['/api/v9', '/'],
    ['/api/v10/', '/'],
    ['/api', '/'],
  ])('when the path is %s, then the service sees %s', (path, stripped) => {
    expect(stripVersion(path)).toBe(stripped);
  });

  it.each([
    '/api/v8/users/@me',
    '/api/v8',
    '/api/v11/users/@me',
    '/api/v1/auth/login',
    '/users/@me',
    '/v9/users/@me',
    '/apix/users',
    '/',
    '',
  ])('when the path is %j, then it is not an API path', (path) => {
    expect(stripVersion(path)).toBeUndefined();
  });
});
