import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('a user’s own authorization of an application', () => {
  it('when two users authorize the same application, then social knows it: a game relationship between them goes through where it was 80009', async () => {
    const developer = await newUser(stack);
    const [alice, bob] = [await newUser(stack), await newUser(stack)];
    const app = await newApplication(stack, developer, 'Game');
    const before = await api(stack, alice, 'PUT', `/users/@me/game-relationships/${bob.userId}`, { application_id: app.id });
    expect(before.body.code).toBe(80009);

    for (const user of [alice, bob]) {
      const res = await authorizeInto(stack, user, app.id, undefined, 'identify applications.commands');
      expect(res.status).toBe(200);
    }
    const after = await api(stack, alice, 'PUT', `/users/@me/game-relationships/${bob.userId}`, { application_id: app.id });
    expect(after.status).toBe(204);
    const rows = await stack.db.selectFrom('oauth2_authorizations').selectAll().where('application_id', '=', app.id).execute();
    expect(rows.map((r) => r.user_id).sort()).toEqual([alice.userId, bob.userId].sort());
    expect(rows[0]!.scopes).toEqual(['applications.commands', 'identify']);
  });

  it('when a user installs the application for themself (integration_type 1), then it is recorded for them and no guild is touched', async () => {
    const developer = await newUser(stack);
    const user = await newUser(stack);
    const app = await newApplication(stack, developer);
    const res = await api(stack, user, 'POST', `/oauth2/authorize?client_id=${app.id}&scope=applications.commands&integration_type=1`, {
      authorize: true,
    });
    expect(res.status).toBe(200);
    const row = await stack.db.selectFrom('oauth2_authorizations').selectAll().where('user_id', '=', user.userId).executeTakeFirst();
    expect(row?.application_id).toBe(app.id);
  });
});

describe('Migrate Guild Command Scope', () => {
  it('when a guild has bot-only app integrations, then each gains applications.commands with INTEGRATION_UPDATE, and those with commands are named', async () => {
    const owner = await newUser(stack);
    const guildId = await newGuild(stack, owner);
    const commander = await newApplication(stack, owner, 'Commander');
    const quiet = await newApplication(stack, owner, 'Quiet');
    await api(stack, owner, 'POST', `/applications/${commander.id}/guilds/${guildId}/commands`, { name: 'roll', description: 'Dice' });
    await authorizeInto(stack, owner, commander.id, guildId, 'bot');
    await authorizeInto(stack, owner, quiet.id, guildId, 'bot');
    const list = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    const byApp = new Map(list.map((i) => [i.application.id, i.id]));

    const member = await newUser(stack);
    await stack.guildsGrpc.addMember({ guildId, userId: member.userId });
    expect((await api(stack, member, 'POST', `/guilds/${guildId}/migrate-command-scope`)).body.code).toBe(50013);

    const res = await api(stack, owner, 'POST', `/guilds/${guildId}/migrate-command-scope`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ integration_ids_with_app_commands: [byApp.get(commander.id)] });
    const after = (await api(stack, owner, 'GET', `/guilds/${guildId}/integrations`)).body as Body[];
    expect(after.every((i) => i.scopes.includes('applications.commands'))).toBe(true);
    const updates = await publishedEvents(stack, 'INTEGRATION_UPDATE', (e) => (e.data as Body).guild_id === guildId);
    expect(updates.map((e) => (e.data as Body).id).sort()).toEqual([...byApp.values()].sort());
    // A second migration has nothing to move: no more updates.
    await api(stack, owner, 'POST', `/guilds/${guildId}/migrate-command-scope`);
    expect(await publishedEvents(stack, 'INTEGRATION_UPDATE', (e) => (e.data as Body).guild_id === guildId)).toHaveLength(2);
  });
});

describe('Get Guild Integration Application IDs', () => {
  it('when the user is in guilds with and without integrations, then every guild of theirs is a key with its applications', async () => {
    const owner = await newUser(stack);
    const withApps = await newGuild(stack, owner, 'Apps');
    const empty = await newGuild(stack, owner, 'Empty');
    const notTheirs = await newGuild(stack, await newUser(stack), 'Elsewhere');
    const app = await newApplication(stack, owner);
    await authorizeInto(stack, owner, app.id, withApps);
    const res = await api(stack, owner, 'GET', '/users/@me/guilds/integration-application-ids');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ [withApps]: [app.id], [empty]: [] });
    expect(res.body[notTheirs]).toBeUndefined();
    expect((await api(stack, null, 'GET', '/users/@me/guilds/integration-application-ids')).status).toBe(401);
  });
});

describe('channel integrations (applications in a group DM)', () => {
  it('when an application is installed in a group DM, then its recipients list it and one removes it (INTEGRATION_DELETE to the recipients); others cannot', async () => {
    const [owner, friend, outsider] = [await newUser(stack), await newUser(stack), await newUser(stack)];
    const dm = await api(stack, owner, 'POST', '/users/@me/channels', { recipients: [friend.userId, outsider.userId] });
    expect(dm.status).toBe(200);
    const channelId = dm.body.id as string;
    await api(stack, owner, 'DELETE', `/channels/${channelId}/recipients/${outsider.userId}`);
    const app = await newApplication(stack, owner, 'Group Game');
    const install = await api(stack, owner, 'POST', `/oauth2/authorize?client_id=${app.id}&scope=applications.commands`, {
      authorize: true,
      channel_id: channelId,
    });
    expect(install.status).toBe(200);

    const list = await api(stack, friend, 'GET', `/channels/${channelId}/integrations`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({ type: 'discord', application: expect.objectContaining({ id: app.id }), scopes: ['applications.commands'] }),
    ]);
    const integrationId = (list.body as Body[])[0].id;
    const stranger = await newUser(stack);
    expect((await api(stack, stranger, 'GET', `/channels/${channelId}/integrations`)).body.code).toBe(10003);
    expect((await api(stack, stranger, 'DELETE', `/channels/${channelId}/integrations/${integrationId}`)).body.code).toBe(10003);
    expect((await api(stack, friend, 'DELETE', `/channels/${channelId}/integrations/1`)).body.code).toBe(10005);
    const guildId = await newGuild(stack, owner);
    const guild = await api(stack, owner, 'GET', `/guilds/${guildId}/channels`);
    const guildChannel = (guild.body as Body[])[0].id;
    expect((await api(stack, owner, 'GET', `/channels/${guildChannel}/integrations`)).body.code).toBe(50001);
    expect((await api(stack, owner, 'GET', '/channels/1/integrations')).body.code).toBe(10003);

    const removed = await api(stack, friend, 'DELETE', `/channels/${channelId}/integrations/${integrationId}`);
    expect(removed.status).toBe(204);
    expect((await api(stack, owner, 'GET', `/channels/${channelId}/integrations`)).body).toEqual([]);
    const [event] = await publishedEvents(stack, 'INTEGRATION_DELETE', (e) => (e.data as Body).id === integrationId);
    expect(event).toMatchObject({ data: { id: integrationId, channel_id: channelId, application_id: app.id } });
    expect(event!.audience.users!.sort()).toEqual([owner.userId, friend.userId].sort());
  });
});
