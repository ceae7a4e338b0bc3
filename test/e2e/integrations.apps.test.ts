import { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { Routes } from 'discord-api-types/v10';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createClient, type ServiceClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { api, newUser } from './client.js';
import { peopleOnline, portOffset, type Online } from './social.fixtures.js';
import type { Dispatch } from './ws-client.js';

/*
 * Applications and guild integrations through `npm start`'s gateway, with the events a manager's
 * socket receives: a developer makes an application, installs it into a guild (its bot joins),
 * lists and removes it.
 */

let grpc: ServiceClient<typeof GuildsService> | undefined;
const guildsGrpc = () => (grpc ??= createClient(GuildsService, `127.0.0.1:${50054 + portOffset()}`, 5000));
afterAll(() => grpc?.close());

type Body = Record<string, unknown> & { id: string; code?: number };

async function guildOf(owner: Online): Promise<string> {
  const res = await api('POST', '/guilds', { token: owner.token, body: { name: 'Apps guild' } });
  expect(res.status).toBe(201);
  const guildId = res.json.id as string;
  await owner.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && (d.d as Body).id === guildId);
  return guildId;
}

const install = (user: Online, appId: string, guildId: string, scope = 'bot applications.commands') =>
  api('POST', `/oauth2/authorize?client_id=${appId}&scope=${encodeURIComponent(scope)}`, {
    token: user.token,
    body: { authorize: true, guild_id: guildId, permissions: '0' },
  });

describe('applications and guild integrations through the gateway', () => {
  it('when a manager installs an application, then the socket gets GUILD_INTEGRATIONS_UPDATE and INTEGRATION_CREATE and its bot joins; deleting it sends INTEGRATION_DELETE and GUILD_MEMBER_REMOVE', async () => {
    const [owner, member] = await peopleOnline(2);
    const guildId = await guildOf(owner);
    const created = await api('POST', '/applications', { token: owner.token, body: { name: 'E2E Bot', flags: 1 << 17 } });
    expect(created.status).toBe(201);
    const app = created.json as Body & { bot: Body };
    expect(app.bot).toMatchObject({ bot: true, username: 'E2E Bot' });

    const joined = await guildsGrpc().addMember({ guildId, userId: member.id });
    expect(joined.errorCode).toBe(0);
    expect((await install(member, app.id, guildId)).json.code).toBe(50013);

    const res = await install(owner, app.id, guildId);
    expect(res.status).toBe(200);
    const isCreate = (d: Dispatch) => d.t === 'INTEGRATION_CREATE' && (d.d as Body).guild_id === guildId;
    await owner.ws.takeThrough(isCreate);
    const seen = owner.ws.dispatches();
    const create = seen.find(isCreate)!;
    expect(create.d).toMatchObject({ type: 'discord', application: { id: app.id }, account: { id: app.id, name: 'E2E Bot' } });
    expect(seen.some((d) => d.t === 'GUILD_INTEGRATIONS_UPDATE' && (d.d as Body).guild_id === guildId)).toBe(true);
    expect(seen.some((d) => d.t === 'GUILD_MEMBER_ADD' && ((d.d as { user?: Body }).user?.id ?? '') === app.bot.id)).toBe(true);

    const list = await api('GET', `/guilds/${guildId}/integrations`, { token: owner.token });
    expect(list.status).toBe(200);
    const [integration] = list.json as unknown as Body[];
    expect(integration).toMatchObject({ type: 'discord', scopes: ['applications.commands', 'bot'], user: { id: owner.id } });
    expect((await api('GET', `/guilds/${guildId}/integrations`, { token: member.token })).json.code).toBe(50013);
    expect((await api('DELETE', `/guilds/${guildId}/integrations/1`, { token: owner.token })).json.code).toBe(10005);

    const removed = await api('DELETE', `/guilds/${guildId}/integrations/${integration!.id}`, { token: owner.token });
    expect(removed.status).toBe(204);
    const isDelete = (d: Dispatch) => d.t === 'INTEGRATION_DELETE' && (d.d as Body).id === integration!.id;
    await owner.ws.takeThrough(isDelete);
    const after = owner.ws.dispatches();
    expect(after.find(isDelete)!.d).toEqual({ id: integration!.id, guild_id: guildId, application_id: app.id });
    expect(after.some((d) => d.t === 'GUILD_MEMBER_REMOVE' && ((d.d as { user?: Body }).user?.id ?? '') === app.bot.id)).toBe(true);
    expect((await api('GET', `/guilds/${guildId}/integrations`, { token: owner.token })).json).toEqual([]);
  });

  it('when bodies and ids are wrong, then the platform’s error codes, never a 500', async () => {
    const [owner] = await peopleOnline(1);
    const guildId = await guildOf(owner);
    expect((await api('POST', '/applications', { token: owner.token, body: { name: 'x' } })).json.code).toBe(50035);
    expect((await api('POST', '/applications', { token: owner.token, raw: '{"name":' })).json.code).toBe(50109);
    expect((await api('POST', '/applications', { body: { name: 'Anon' } })).status).toBe(401);
    expect((await install(owner, '1', guildId)).json.code).toBe(10002);
    expect(
      (await api('GET', `/guilds/${guildId}/integrations?include_role_connections_metadata=nope`, { token: owner.token })).status,
    ).toBe(400);
    expect((await api('GET', '/guilds/1/integrations', { token: owner.token })).json.code).toBe(10004);
    expect((await api('GET', '/applications/abc', { token: owner.token })).json.code).toBe(50035);
  });
});

describe('an application’s bot signing in', () => {
  it('when the owner resets the bot token, then @discordjs/rest is the bot on GET /users/@me and @discordjs/ws IDENTIFYs and gets READY as it', async () => {
    const owner = await newUser();
    const app = (await api('POST', '/applications', { token: owner.token, body: { name: 'Socket Bot' } })).json as Body & { bot: Body };
    const refused = await api('POST', `/applications/${app.id}/bot/reset`, { token: owner.token });
    expect(refused.json.code).toBe(60003);
    const ticket = (refused.json.mfa as { ticket: string }).ticket;
    const finished = await api('POST', '/mfa/finish', { token: owner.token, body: { ticket, mfa_type: 'password', data: owner.password } });
    const issued = await api('POST', `/applications/${app.id}/bot/reset`, {
      token: owner.token,
      headers: { 'x-discord-mfa-authorization': finished.json.token as string },
    });
    expect(issued.status).toBe(200);
    const token = issued.json.token as string;

    const rest = new REST({ api: `${inject('gatewayOrigin')}/api`, version: '10' }).setToken(token);
    expect(await rest.get(Routes.user())).toMatchObject({ id: app.bot.id, bot: true, username: 'Socket Bot' });
    expect((await api('GET', '/users/@me', { token })).status).toBe(401);

    const ws = new WebSocketManager({ token, intents: 0, rest });
    const ready = new Promise<Body>((resolve) => ws.once(WebSocketShardEvents.Ready, (payload) => resolve(payload as never)));
    await ws.connect();
    try {
      expect(await ready).toMatchObject({ user: { id: app.bot.id, bot: true }, application: { id: app.id } });
    } finally {
      await ws.destroy();
    }
  });
});

describe('streaming integrations through the gateway, on the development providers', () => {
  it('when a streamer connects Twitch and enables it, then INTEGRATION_CREATE, a managed role, and a sync’s INTEGRATION_UPDATE reach the socket', async () => {
    const [streamer] = await peopleOnline(1);
    const guildId = await guildOf(streamer);
    const start = await api('GET', '/connections/twitch/authorize', { token: streamer.token });
    expect(start.status).toBe(200);
    // The development consent page approves at once, as its built-in account.
    const consent = await fetch(start.json.url as string, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const connected = await api('POST', '/connections/twitch/callback', {
      token: streamer.token,
      body: { code: back.searchParams.get('code'), state: back.searchParams.get('state') },
    });
    expect(connected.status).toBe(200);
    const accountId = connected.json.id as string;
    expect((await api('GET', '/users/@me/connections', { token: streamer.token })).json).toEqual([
      expect.objectContaining({ id: accountId, type: 'twitch' }),
    ]);

    expect(
      (await api('POST', `/guilds/${guildId}/integrations`, { token: streamer.token, body: { type: 'streaming_a', id: accountId } }))
        .status,
    ).toBe(204);
    const isCreate = (d: Dispatch) => d.t === 'INTEGRATION_CREATE' && (d.d as Body).guild_id === guildId;
    await streamer.ws.takeThrough(isCreate);
    const created = streamer.ws.dispatches().find(isCreate)!.d as Body;
    expect(created).toMatchObject({ type: 'twitch', account: { id: accountId }, syncing: false, expire_grace_period: 1 });
    expect(streamer.ws.dispatches().some((d) => d.t === 'GUILD_ROLE_CREATE' && (d.d as { role: Body }).role.id === created.role_id)).toBe(
      true,
    );

    expect((await api('POST', `/guilds/${guildId}/integrations/${created.id}/sync`, { token: streamer.token })).status).toBe(204);
    // The request answers at once (syncing: true); the worker's run ends with syncing: false.
    const isUpdate = (d: Dispatch) => d.t === 'INTEGRATION_UPDATE' && (d.d as Body).id === created.id && (d.d as Body).syncing === false;
    await streamer.ws.takeThrough(isUpdate);
    expect(streamer.ws.dispatches().find(isUpdate)!.d).toMatchObject({ subscriber_count: 1, revoked: false });
    expect(
      (await api('PATCH', `/guilds/${guildId}/integrations/${created.id}`, { token: streamer.token, body: { expire_grace_period: 4 } }))
        .json.code,
    ).toBe(50035);
  });
});
