import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedis, eventSubject } from '@kith/platform';
import { readStoredEvents } from '@kith/platform/testing';
import {
  api,
  authorizeInto,
  newApplication,
  newGuild,
  newUser,
  publishedEvents,
  startIntegrationsStack,
  stopIntegrationsStack,
  type Body,
  type IntegrationsStack,
} from './harness.js';

let stack: IntegrationsStack;

beforeAll(async () => {
  stack = await startIntegrationsStack();
});
afterAll(() => stopIntegrationsStack(stack));

const EMBEDDED = 1 << 17;

describe('applications', () => {
  it('when a user creates an application, then it has a bot user made by auth (bot: true) and the flags asked for', async () => {
    const owner = await newUser(stack);
    const res = await api(stack, owner, 'POST', '/applications', { name: 'Weather', description: 'Forecasts', flags: EMBEDDED });
    expect(res.status).toBe(201);
    const app = res.body;
    expect(app).toMatchObject({
      id: expect.stringMatching(/^\d{17,19}$/),
      name: 'Weather',
      description: 'Forecasts',
      flags: EMBEDDED,
      verify_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      bot_public: true,
      owner: { id: owner.userId },
      bot: { username: 'Weather', bot: true, discriminator: expect.stringMatching(/^\d{4}$/) },
    });
    const { users } = await stack.authGrpc.getUsers({ userIds: [app.bot.id] });
    expect(users[0]).toMatchObject({ id: app.bot.id, bot: true });
    expect((await api(stack, owner, 'GET', `/applications/${app.id}`)).body).toMatchObject({ id: app.id, bot: { id: app.bot.id } });
    expect(((await api(stack, owner, 'GET', '/applications')).body as Body[]).map((a) => a.id)).toEqual([app.id]);
  });

  it('when the body is wrong, the caller anonymous or not the owner, then the platform’s errors and nothing is made', async () => {
    const owner = await newUser(stack);
    const missing = await api(stack, owner, 'POST', '/applications', {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors.name._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const flags = await api(stack, owner, 'POST', '/applications', { name: 'Flags', flags: 1 << 12 });
    expect(flags.body.errors.flags._errors[0].code).toBe('BASE_TYPE_INVALID');
    expect((await api(stack, null, 'POST', '/applications', { name: 'Anon' })).status).toBe(401);
    expect((await api(stack, owner, 'GET', '/applications')).body).toEqual([]);
    const app = await newApplication(stack, owner);
    const stranger = await newUser(stack);
    expect((await api(stack, stranger, 'GET', `/applications/${app.id}`)).body.code).toBe(50001);
    expect((await api(stack, stranger, 'GET', '/applications/1')).body.code).toBe(10002);
    expect((await api(stack, stranger, 'PATCH', `/applications/${app.id}`, { name: 'Mine' })).body.code).toBe(50001);
  });

  it('when the owner registers commands, then they are listed; the same name replaces; bad names are 50035', async () => {
    const owner = await newUser(stack);
    const app = await newApplication(stack, owner);
    const first = await api(stack, owner, 'POST', `/applications/${app.id}/commands`, { name: 'ping', description: 'Pong' });
    expect(first.status).toBe(201);
    const again = await api(stack, owner, 'POST', `/applications/${app.id}/commands`, { name: 'ping', description: 'Pong!' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.version).not.toBe(first.body.version);
    const list = (await api(stack, owner, 'GET', `/applications/${app.id}/commands`)).body as Body[];
    expect(list.map((c) => [c.name, c.description])).toEqual([['ping', 'Pong!']]);
    const bad = await api(stack, owner, 'POST', `/applications/${app.id}/commands`, { name: 'Has Spaces', description: 'x' });
    expect(bad.body.errors.name._errors[0].code).toBe('APPLICATION_COMMAND_INVALID_NAME');
  });
});

describe('authorizing an application into a guild', () => {
  it('when a manager authorizes bot + applications.commands, then an app integration exists, its bot is a member, and the events are published', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const app = await newApplication(stack, owner, 'Installer');
    const res = await authorizeInto(stack, owner, app.id, guildId);
    expect(res.status).toBe(200);
    expect(res.body.location).toMatch(/^http/);

    const member = await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id });
    expect(member.found).toBe(true);
    const list = await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: expect.stringMatching(/^\d+$/),
        name: 'Installer',
        type: 'discord',
        enabled: true,
        account: { id: app.id, name: 'Installer' },
        application: expect.objectContaining({
          id: app.id,
          name: 'Installer',
          bot: expect.objectContaining({ id: app.bot.id, bot: true }),
        }),
        scopes: ['applications.commands', 'bot'],
        user: expect.objectContaining({ id: owner.userId }),
      },
    ]);
    const integrationId = (list.body as Body[])[0].id;
    const [created] = await publishedEvents(stack, 'INTEGRATION_CREATE', (e) => (e.data as Body).id === integrationId);
    expect(created).toMatchObject({
      audience: { guilds: [guildId] },
      data: { guild_id: guildId, type: 'discord', application: { id: app.id } },
    });
    expect(await publishedEvents(stack, 'GUILD_INTEGRATIONS_UPDATE', (e) => (e.data as Body).guild_id === guildId)).toHaveLength(1);

    // Authorizing again widens nothing and creates nothing: one integration, now updated.
    expect((await authorizeInto(stack, owner, app.id, guildId, 'bot')).status).toBe(200);
    expect((await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body).toHaveLength(1);
    expect(await publishedEvents(stack, 'INTEGRATION_UPDATE', (e) => (e.data as Body).id === integrationId)).toHaveLength(1);
  });

  it('when the authorization is wrong, then the platform’s error and no integration', async () => {
    const owner = await newUser(stack);
    const member = await newUser(stack);
    const outsider = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    expect((await stack.guildsGrpc.addMember({ guildId, userId: member.userId })).errorCode).toBe(0);
    const app = await newApplication(stack, owner);

    expect((await authorizeInto(stack, member, app.id, guildId)).body.code).toBe(50013);
    expect((await authorizeInto(stack, outsider, app.id, guildId)).body.code).toBe(10004);
    expect((await authorizeInto(stack, owner, '1', guildId)).body.code).toBe(10002);
    expect((await authorizeInto(stack, owner, app.id, undefined, 'bot')).body.errors.guild_id._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    expect((await authorizeInto(stack, owner, app.id, guildId, 'bot nonsense')).body.errors.scope._errors[0].code).toBe('SCOPE_INVALID');
    const noClient = await api(stack, owner, 'POST', '/oauth2/authorize?scope=bot', { authorize: true, guild_id: guildId });
    expect(noClient.body.errors.client_id._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const broken = await fetch(`${stack.base}/api/v9/oauth2/authorize?client_id=${app.id}&scope=bot`, {
      method: 'POST',
      headers: { authorization: owner.token, 'content-type': 'application/json' },
      body: '{"authorize": tru',
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as Body).code).toBe(50109);
    const denied = await api(stack, owner, 'POST', `/oauth2/authorize?client_id=${app.id}&scope=bot`, {
      authorize: false,
      guild_id: guildId,
    });
    expect(denied.body.location).toContain('error=access_denied');
    expect((await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body).toEqual([]);
    expect((await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id })).found).toBe(false);
  });
});

describe('authorizing with a redirect (the authorization code grant)', () => {
  const authorizeAt = (user: Body, query: Record<string, string>, body: Record<string, unknown>) =>
    api(stack, user, 'POST', `/oauth2/authorize?${new URLSearchParams(query)}`, body);

  /** What the stored code grants (codes are kept under their SHA-256 only). */
  const grantOf = async (code: string) => {
    const redis = createRedis(inject('stores').REDIS_URL, stack.redisPrefix);
    try {
      const raw = await redis.get(`oauth2-code:${createHash('sha256').update(code).digest('hex')}`);
      return raw === null ? null : (JSON.parse(raw) as Body);
    } finally {
      redis.disconnect();
    }
  };

  it('when the redirect URI is registered, then the browser goes back there with a code for this grant and the state', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const app = await newApplication(stack, owner, 'Redirected Bot');
    const [callback, other] = ['https://app.example/callback', 'https://app.example/other'];
    const uris = [callback, other];
    expect((await api(stack, owner, 'PATCH', `/applications/${app.id}`, { redirect_uris: uris })).status).toBe(200);

    const res = await authorizeAt(
      owner,
      { client_id: app.id, scope: 'bot identify', response_type: 'code', redirect_uri: other, state: 'xyz 1' },
      { authorize: true, guild_id: guildId, permissions: '2048' },
    );
    expect(res.status).toBe(200);
    const location = new URL(res.body.location);
    expect(`${location.origin}${location.pathname}`).toBe(other);
    expect(location.searchParams.get('state')).toBe('xyz 1');
    expect(location.searchParams.get('guild_id')).toBe(guildId);
    expect(location.searchParams.get('permissions')).toBe('2048');
    const code = location.searchParams.get('code') ?? '';
    expect(code.length).toBeGreaterThanOrEqual(30);
    expect(await grantOf(code)).toEqual({
      applicationId: app.id,
      userId: owner.userId,
      scopes: ['bot', 'identify'],
      redirectUri: other,
      guildId,
      permissions: '2048',
    });
    expect((await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id })).found).toBe(true);

    // No redirect URI asked: the first registered; declined: back there with the error.
    const first = await authorizeAt(owner, { client_id: app.id, scope: 'identify', response_type: 'code' }, { authorize: true });
    expect(first.body.location.startsWith(`${callback}?code=`)).toBe(true);
    const declined = await authorizeAt(
      owner,
      { client_id: app.id, scope: 'identify', response_type: 'code', state: 's' },
      { authorize: false },
    );
    expect(declined.body.location).toBe(`${callback}?error=access_denied&state=s`);
  });

  it('when the redirect URI is not registered or the response type is not code, then 50035 and nothing is installed', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const app = await newApplication(stack, owner, 'Strict Bot');
    const install = { authorize: true, guild_id: guildId, permissions: '0' };

    // None registered: a response type has nowhere to send the browser.
    const unregistered = await authorizeAt(owner, { client_id: app.id, scope: 'bot', response_type: 'code' }, install);
    expect(unregistered.status).toBe(400);
    expect(unregistered.body.code).toBe(50035);
    expect(unregistered.body.errors.redirect_uri._errors[0].code).toBe('INVALID_OAUTH_REDIRECT_URI');

    await api(stack, owner, 'PATCH', `/applications/${app.id}`, { redirect_uris: ['https://app.example/callback'] });
    for (const redirect_uri of ['https://evil.example/callback', 'https://app.example/callback/', 'https://app.example/callback?x=1']) {
      const foreign = await authorizeAt(owner, { client_id: app.id, scope: 'bot', response_type: 'code', redirect_uri }, install);
      expect(foreign.status).toBe(400);
      expect(foreign.body.errors.redirect_uri._errors[0].code).toBe('INVALID_OAUTH_REDIRECT_URI');
    }
    // Even a refusal is never sent to an unregistered place.
    const refusedForeign = await authorizeAt(
      owner,
      { client_id: app.id, scope: 'bot', redirect_uri: 'https://evil.example/' },
      { authorize: false, guild_id: guildId },
    );
    expect(refusedForeign.body.errors.redirect_uri._errors[0].code).toBe('INVALID_OAUTH_REDIRECT_URI');
    for (const response_type of ['token', 'id_token', '']) {
      const badType = await authorizeAt(owner, { client_id: app.id, scope: 'bot', response_type }, install);
      expect(badType.status).toBe(400);
      expect(badType.body.errors.response_type._errors[0].code).toBe('BASE_TYPE_CHOICES');
    }

    expect((await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body).toEqual([]);
    expect((await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id })).found).toBe(false);
  });
});

const MANAGE_GUILD = 1n << 5n;
const KICK_MEMBERS = 1n << 1n;
const BAN_MEMBERS = 1n << 2n;
const SEND_MESSAGES = 1n << 11n;

/** `user` authorizes the bot into the guild asking for these permissions. */
const authorizeWith = (user: Body, appId: string, guildId: string, permissions: bigint | string) =>
  api(stack, user, 'POST', `/oauth2/authorize?client_id=${appId}&scope=bot`, {
    authorize: true,
    guild_id: guildId,
    permissions: String(permissions),
  });

/** The permissions of each GUILD_ROLE_UPDATE guilds published for the role, in order (once its relay caught up with `count`). */
async function roleUpdates(guildId: string, roleId: string, count = 0): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stored = await readStoredEvents<Body>(stack.nats, eventSubject('guilds', 'GUILD_ROLE_UPDATE'), stack.startedAt);
    const found = stored
      .map((e) => e.envelope.data)
      .filter((d) => d.guild_id === guildId && d.role.id === roleId)
      .map((d) => d.role.permissions as string);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const rolesOf = async (owner: Body, guildId: string) => (await api(stack, owner, 'GET', `/guilds/${guildId}/roles`)).body as Body[];

describe('authorizing a bot with permissions', () => {
  it('when permissions are asked, then a managed role named after the bot, tagged with it and holding them, is the bot’s; deleting the integration deletes it', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const app = await newApplication(stack, owner, 'Moderator Bot');
    const res = await authorizeWith(owner, app.id, guildId, KICK_MEMBERS | SEND_MESSAGES);
    expect(res.status).toBe(200);
    const role = (await rolesOf(owner, guildId)).find((r) => r.tags?.bot_id === app.bot.id);
    expect(role).toMatchObject({
      name: 'Moderator Bot',
      managed: true,
      permissions: String(KICK_MEMBERS | SEND_MESSAGES),
      tags: { bot_id: app.bot.id },
    });
    const member = await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id });
    expect(member.member?.roleIds).toEqual([role.id]);
    // Authorizing again makes no second role: the bot's role takes the permissions asked now.
    expect((await authorizeWith(owner, app.id, guildId, KICK_MEMBERS | BAN_MEMBERS)).status).toBe(200);
    const botRoles = (await rolesOf(owner, guildId)).filter((r) => r.tags?.bot_id === app.bot.id);
    expect(botRoles).toEqual([expect.objectContaining({ id: role.id, permissions: String(KICK_MEMBERS | BAN_MEMBERS) })]);
    expect(await roleUpdates(guildId, role.id, 1)).toEqual([String(KICK_MEMBERS | BAN_MEMBERS)]);
    // The same permissions again change nothing and announce nothing.
    expect((await authorizeWith(owner, app.id, guildId, KICK_MEMBERS | BAN_MEMBERS)).status).toBe(200);
    // Asking for what the caller lacks still fails, and leaves the role as it was.
    const helper = await newUser(stack);
    expect((await stack.guildsGrpc.addMember({ guildId, userId: helper.userId })).errorCode).toBe(0);
    expect((await authorizeWith(helper, app.id, guildId, SEND_MESSAGES)).body.code).toBe(50013);
    expect((await authorizeWith(owner, app.id, guildId, SEND_MESSAGES)).status).toBe(200);
    expect(await roleUpdates(guildId, role.id, 2)).toEqual([String(KICK_MEMBERS | BAN_MEMBERS), String(SEND_MESSAGES)]);
    expect((await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id })).member?.roleIds).toEqual([role.id]);

    const [integration] = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    expect(integration).not.toHaveProperty('role_id');
    expect((await api(stack, owner, 'DELETE', `/guilds/${guildId}/integrations/${integration.id}`)).status).toBe(204);
    expect((await rolesOf(owner, guildId)).some((r) => r.id === role.id)).toBe(false);
  });

  it('when no permissions are asked, then no role is made (the platform’s rule)', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const app = await newApplication(stack, owner, 'Plain Bot');
    expect((await authorizeWith(owner, app.id, guildId, 0n)).status).toBe(200);
    expect((await rolesOf(owner, guildId)).some((r) => r.managed)).toBe(false);
    expect((await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id })).found).toBe(true);
  });

  it('when a manager asks for a permission they lack, then 50013 and neither a role nor a bot member; what they have is granted', async () => {
    const owner = await newUser(stack);
    const manager = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    await stack.guildsGrpc.addMember({ guildId, userId: manager.userId });
    const managers = await api(stack, owner, 'POST', `/guilds/${guildId}/roles`, {
      name: 'Managers',
      permissions: String(MANAGE_GUILD | KICK_MEMBERS),
    });
    expect(managers.status).toBe(200);
    expect((await api(stack, owner, 'PUT', `/guilds/${guildId}/members/${manager.userId}/roles/${managers.body.id}`)).status).toBe(204);
    const app = await newApplication(stack, manager, 'Ambitious Bot');

    const refused = await authorizeWith(manager, app.id, guildId, KICK_MEMBERS | BAN_MEMBERS);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(50013);
    expect((await rolesOf(owner, guildId)).some((r) => r.managed)).toBe(false);
    expect((await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id })).found).toBe(false);
    expect((await authorizeWith(manager, app.id, guildId, 'lots')).status).toBe(400);

    expect((await authorizeWith(manager, app.id, guildId, KICK_MEMBERS)).status).toBe(200);
    const role = (await rolesOf(owner, guildId)).find((r) => r.tags?.bot_id === app.bot.id);
    expect(role).toMatchObject({ permissions: String(KICK_MEMBERS) });
  });

  it('when many authorizations of one bot race, then the bot ends with exactly one role, and holds it', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const app = await newApplication(stack, owner, 'Racing Bot');
    // A loaded machine may shed one with 503 and Retry-After: asked again, as a real client does.
    const served = async () => {
      for (let attempt = 1; ; attempt++) {
        const answer = await authorizeWith(owner, app.id, guildId, SEND_MESSAGES);
        if (answer.status !== 503 || attempt === 5) return answer;
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers['retry-after'] ?? 1) * 1000));
      }
    };
    const answers = await Promise.all(Array.from({ length: 6 }, served));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const roles = (await rolesOf(owner, guildId)).filter((r) => r.tags?.bot_id === app.bot.id);
    expect(roles).toHaveLength(1);
    const member = await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id });
    expect(member.member?.roleIds).toEqual([roles[0].id]);
  });
});

describe('Get and Delete Guild Integrations', () => {
  it('when listing, then MANAGE_GUILD is needed; has_commands keeps apps with commands; role connections metadata only when asked', async () => {
    const owner = await newUser(stack);
    const member = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    await stack.guildsGrpc.addMember({ guildId, userId: member.userId });
    const withCommands = await newApplication(stack, owner, 'Commander');
    const without = await newApplication(stack, owner, 'Quiet');
    await api(stack, owner, 'POST', `/applications/${withCommands.id}/commands`, { name: 'roll', description: 'Dice' });
    await authorizeInto(stack, owner, withCommands.id, guildId);
    await authorizeInto(stack, owner, without.id, guildId);

    expect((await api(stack, member, 'GET', `/guilds/${guildId}/integrations`)).body.code).toBe(50013);
    expect((await api(stack, await newUser(stack), 'GET', `/guilds/${guildId}/integrations`)).body.code).toBe(10004);
    expect((await api(stack, null, 'GET', `/guilds/${guildId}/integrations`)).status).toBe(401);
    const bad = await api(stack, owner, 'GET', `/guilds/${guildId}/integrations?has_commands=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.has_commands).toBeDefined();

    const all = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    expect(all.map((i) => i.application.id).sort()).toEqual([withCommands.id, without.id].sort());
    expect(all[0].role_connections_metadata).toBeUndefined();
    const filtered = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations?has_commands=true`)).body as Body[];
    expect(filtered.map((i) => i.application.id)).toEqual([withCommands.id]);
    const meta = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations?include_role_connections_metadata=true`)).body as Body[];
    expect(meta[0].role_connections_metadata).toEqual([]);
    expect(meta[0].application).toHaveProperty('role_connections_verification_url', null);
  });

  it('when an app integration is deleted, then its bot leaves the guild, the row is gone and INTEGRATION_DELETE is published; failures change nothing', async () => {
    const owner = await newUser(stack);
    const member = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const otherGuildId = await newGuild(stack, owner, 'Other');
    await stack.guildsGrpc.addMember({ guildId, userId: member.userId });
    const app = await newApplication(stack, owner, 'Leaver');
    await authorizeInto(stack, owner, app.id, guildId);
    const [integration] = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];

    expect((await api(stack, member, 'DELETE', `/guilds/${guildId}/integrations/${integration.id}`)).body.code).toBe(50013);
    expect((await api(stack, owner, 'DELETE', `/guilds/${guildId}/integrations/1`)).body.code).toBe(10005);
    expect((await api(stack, owner, 'DELETE', `/guilds/${otherGuildId}/integrations/${integration.id}`)).body.code).toBe(10005);
    expect((await api(stack, owner, 'DELETE', `/guilds/${guildId}/integrations/abc`)).status).toBe(400);
    expect((await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id })).found).toBe(true);

    const res = await api(stack, owner, 'DELETE', `/guilds/${guildId}/integrations/${integration.id}`);
    expect(res.status).toBe(204);
    expect(res.headers['content-type']).toBeUndefined();
    expect((await stack.guildsGrpc.getMember({ guildId, userId: app.bot.id })).found).toBe(false);
    expect((await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body).toEqual([]);
    const [deleted] = await publishedEvents(stack, 'INTEGRATION_DELETE', (e) => (e.data as Body).id === integration.id);
    expect(deleted).toMatchObject({
      audience: { guilds: [guildId] },
      data: { id: integration.id, guild_id: guildId, application_id: app.id },
    });
    expect((await api(stack, owner, 'DELETE', `/guilds/${guildId}/integrations/${integration.id}`)).body.code).toBe(10005);
  });

  it('when the same integration is deleted by many concurrent requests, then exactly one 204 and one INTEGRATION_DELETE', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const app = await newApplication(stack, owner, 'Racer');
    await authorizeInto(stack, owner, app.id, guildId);
    const [integration] = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api(stack, owner, 'DELETE', `/guilds/${guildId}/integrations/${integration.id}`)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([204, 404, 404, 404, 404, 404, 404, 404]);
    const events = await publishedEvents(stack, 'INTEGRATION_DELETE', (e) => (e.data as Body).id === integration.id);
    expect(events).toHaveLength(1);
  });
});
