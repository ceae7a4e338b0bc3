import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  authorizeInto,
  newApplication,
  newGuild,
  newUser,
  startIntegrationsStack,
  stopIntegrationsStack,
  type Body,
  type IntegrationsStack,
  type StackUser,
} from './harness.js';

/*
 * Preview OAuth2 Authorization (GET /oauth2/authorize) through the edge: what the consent screen
 * shows, from real guilds (MANAGE_GUILD) and auth (users).
 */

let stack: IntegrationsStack;

beforeAll(async () => {
  stack = await startIntegrationsStack();
});
afterAll(() => stopIntegrationsStack(stack));

const preview = (user: StackUser | null, query: Record<string, string>) =>
  api(stack, user, 'GET', `/oauth2/authorize?${new URLSearchParams(query)}`);

describe('Preview OAuth2 Authorization', () => {
  it('when a bot is to be added, then the application, the user, the bot and only the guilds the user can manage, with their permissions', async () => {
    const owner = await newUser(stack);
    const user = await newUser(stack);
    const managed = await newGuild(stack, user, 'Mine');
    const other = await newGuild(stack, owner, 'Not mine');
    await stack.guildsGrpc.addMember({ guildId: other, userId: user.userId });
    const app = await newApplication(stack, owner, 'Preview Bot');

    const res = await preview(user, { client_id: app.id, scope: 'bot applications.commands' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      application: expect.objectContaining({ id: app.id, name: 'Preview Bot', bot_public: true, verify_key: app.verify_key }),
      user: expect.objectContaining({ id: user.userId, username: user.username }),
      authorized: false,
      integration_type: 0,
      bot: expect.objectContaining({ id: app.bot.id, bot: true }),
      guilds: [{ id: managed, name: 'Mine', icon: null, mfa_level: 0, permissions: expect.stringMatching(/^\d+$/) }],
    });
    expect(res.body).not.toHaveProperty('redirect_uri');
    // A user install lists no guilds and shows no bot.
    const forUser = await preview(user, { client_id: app.id, scope: 'identify', integration_type: '1' });
    expect(forUser.body).not.toHaveProperty('guilds');
    expect(forUser.body).not.toHaveProperty('bot');
    expect(forUser.body.integration_type).toBe(1);
  });

  it('when the user already granted these scopes, then authorized is true (consent can be skipped); never for a bot', async () => {
    const owner = await newUser(stack);
    const user = await newUser(stack);
    const guildId = await newGuild(stack, user);
    const app = await newApplication(stack, owner, 'Known App');
    expect((await preview(user, { client_id: app.id, scope: 'identify' })).body.authorized).toBe(false);
    expect((await authorizeInto(stack, user, app.id, undefined, 'identify guilds')).status).toBe(200);
    expect((await preview(user, { client_id: app.id, scope: 'identify' })).body.authorized).toBe(true);
    expect((await preview(user, { client_id: app.id, scope: 'identify email' })).body.authorized).toBe(false);
    expect((await authorizeInto(stack, user, app.id, guildId, 'bot')).status).toBe(200);
    expect((await preview(user, { client_id: app.id, scope: 'bot' })).body.authorized).toBe(false);
  });

  it('when a response type is asked, then the redirect URI must be registered; none given means the first registered', async () => {
    const owner = await newUser(stack);
    const app = await newApplication(stack, owner, 'Redirecting');
    expect((await preview(owner, { client_id: app.id, scope: 'identify', response_type: 'code' })).body.errors.redirect_uri).toBeDefined();
    const patched = await api(stack, owner, 'PATCH', `/applications/${app.id}`, {
      redirect_uris: ['https://app.example/callback', 'https://app.example/other'],
    });
    expect(patched.body.redirect_uris).toEqual(['https://app.example/callback', 'https://app.example/other']);
    const first = await preview(owner, { client_id: app.id, scope: 'identify', response_type: 'code' });
    expect(first.body.redirect_uri).toBe('https://app.example/callback');
    const chosen = await preview(owner, {
      client_id: app.id,
      scope: 'identify',
      response_type: 'code',
      redirect_uri: 'https://app.example/other',
    });
    expect(chosen.body.redirect_uri).toBe('https://app.example/other');
    const foreign = await preview(owner, {
      client_id: app.id,
      scope: 'identify',
      response_type: 'code',
      redirect_uri: 'https://evil.example/steal',
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors.redirect_uri._errors[0].code).toBe('INVALID_OAUTH_REDIRECT_URI');
    const badUris = await api(stack, owner, 'PATCH', `/applications/${app.id}`, { redirect_uris: ['javascript:alert(1)'] });
    expect(badUris.body.code).toBe(50035);
    const tooMany = await api(stack, owner, 'PATCH', `/applications/${app.id}`, {
      redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/${i}`),
    });
    expect(tooMany.body.code).toBe(50035);
  });

  it('when the query is wrong, the application unknown or private, or the caller anonymous, then the platform’s errors', async () => {
    const owner = await newUser(stack);
    const stranger = await newUser(stack);
    const app = await newApplication(stack, owner, 'Private');
    await stack.db.updateTable('applications').set({ bot_public: false }).where('id', '=', app.id).execute();
    expect((await preview(null, { client_id: app.id, scope: 'bot' })).status).toBe(401);
    expect((await preview(stranger, { client_id: '1', scope: 'bot' })).body.code).toBe(10002);
    expect((await preview(stranger, { client_id: app.id, scope: 'bot' })).body.code).toBe(50001);
    expect((await preview(owner, { client_id: app.id, scope: 'bot' })).status).toBe(200);
    const noScope = (await preview(owner, { client_id: app.id, scope: '' })).body as Body;
    expect(noScope.errors.scope._errors[0].code).toBe('SCOPE_INVALID');
    expect((await preview(owner, { client_id: app.id, scope: 'bot nope' })).body.errors.scope._errors[0].code).toBe('SCOPE_INVALID');
    expect((await preview(owner, { scope: 'bot' })).body.errors.client_id._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    expect((await preview(owner, { client_id: 'abc', scope: 'bot' })).body.code).toBe(50035);
    const badType = await preview(owner, { client_id: app.id, scope: 'identify', response_type: 'id_token' });
    expect(badType.body.errors.response_type._errors[0].code).toBe('BASE_TYPE_CHOICES');
  });
});
