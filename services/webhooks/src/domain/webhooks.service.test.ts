import { describe, expect, it } from 'vitest';
import { ApiError } from '@kith/platform';
import { FakeGuilds, FakeUsers, MemoryWebhooks, ids, vault } from '../../test/fakes/world.js';
import { WebhooksService } from './webhooks.service.js';
import { Permission } from './webhook.types.js';

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function world() {
  const store = new MemoryWebhooks();
  const guilds = new FakeGuilds();
  const users = new FakeUsers();
  users.known.set('1', { id: '1', username: 'ana' });
  guilds.addChannel({ id: '100', guildId: '10' });
  guilds.addChannel({ id: '101', guildId: '10' });
  guilds.addChannel({ id: '200', guildId: '20' });
  guilds.addChannel({ id: '110', guildId: '10', type: 11, parentId: '100' });
  guilds.grant('1', '10');
  guilds.grant('1', '20');
  guilds.viewers.set('100', ['1', '2']);
  const service = new WebhooksService({
    store,
    guilds,
    users,
    vault,
    ids,
    apiUrl: 'http://edge/api',
    limits: { perChannel: 2, perGuild: 3 },
  });
  return { store, guilds, service };
}

async function code(p: Promise<unknown>): Promise<number> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err.body.code;
}

describe('WebhooksService', () => {
  it('when a manager creates one, then it has a 68-character token, sealed and digested, and WEBHOOKS_UPDATE goes to the viewers', async () => {
    const { store, service } = world();
    const view = await service.create('1', '100', { name: 'hook', avatar: PNG });
    expect(view.token).toMatch(/^[A-Za-z0-9_-]{68}$/);
    expect(view.url).toBe(`http://edge/api/webhooks/${view.id}/${view.token}`);
    expect(view.user).toEqual({ id: '1', username: 'ana' });
    expect(view.avatar).toMatch(/^[0-9a-f]{32}$/);
    const row = store.rows.get(view.id)!;
    expect(row.tokenSealed.toString('latin1')).not.toContain(view.token);
    expect(vault.open(row.tokenSealed)).toBe(view.token);
    expect(store.events).toEqual([
      { name: 'WEBHOOKS_UPDATE', audience: { users: ['1', '2'] }, data: { guild_id: '10', channel_id: '100' } },
    ]);
  });

  it('when the limits are reached, then 30007 per channel and 30058 per guild', async () => {
    const { guilds, service } = world();
    await service.create('1', '100', { name: 'a' });
    await service.create('1', '100', { name: 'b' });
    expect(await code(service.create('1', '100', { name: 'c' }))).toBe(30007);
    await service.create('1', '101', { name: 'c' });
    guilds.addChannel({ id: '102', guildId: '10' });
    expect(await code(service.create('1', '102', { name: 'd' }))).toBe(30058);
  });

  it('when the caller may not manage webhooks, then 10003 for a channel they cannot see, 50013 without MANAGE_WEBHOOKS, 50024 in a thread', async () => {
    const { guilds, service } = world();
    expect(await code(service.create('9', '100', { name: 'x' }))).toBe(10003);
    guilds.grant('9', '10', Permission.VIEW_CHANNEL);
    expect(await code(service.create('9', '100', { name: 'x' }))).toBe(50013);
    expect(await code(service.create('1', '999', { name: 'x' }))).toBe(10003);
    expect(await code(service.create('1', '110', { name: 'x' }))).toBe(50024);
    expect(await code(service.listGuild('9', '10'))).toBe(50013);
    expect(await code(service.listGuild('8', '10'))).toBe(10004);
  });

  it('when the name holds a reserved word, then 50035 on name', async () => {
    const { service } = world();
    const err = await service.create('1', '100', { name: 'My Discord Hook' }).catch((e: ApiError) => e);
    expect((err as ApiError).body).toMatchObject({ code: 50035, errors: { name: { _errors: [{ code: 'USERNAME_INVALID_CONTAINS' }] } } });
  });

  it('when presented a token, then only the exact token passes (50027), and an unknown webhook is 10015', async () => {
    const { service } = world();
    const view = await service.create('1', '100', { name: 'hook' });
    expect((await service.withToken(view.id, view.token!)).id).toBe(view.id);
    expect(await code(service.withToken(view.id, `${view.token!.slice(0, -1)}_`))).toBe(50027);
    expect(await code(service.withToken(view.id, view.token!.slice(0, 10)))).toBe(50027);
    expect(await code(service.withToken('12345', view.token!))).toBe(10015);
  });

  it('when fetched with the token, then no user; modified with it, channel_id is refused', async () => {
    const { service } = world();
    const view = await service.create('1', '100', { name: 'hook' });
    const webhook = await service.withToken(view.id, view.token!);
    expect(await service.getWithToken(webhook)).not.toHaveProperty('user');
    expect(await code(service.modifyWithToken(webhook, { channelId: '101' }))).toBe(50035);
    expect((await service.modifyWithToken(webhook, { name: 'renamed' })).name).toBe('renamed');
  });

  it('when moved, then within the guild only and counted against the target channel', async () => {
    const { service } = world();
    const view = await service.create('1', '100', { name: 'hook' });
    expect(await code(service.modify('1', view.id, { channelId: '200' }))).toBe(50035);
    const moved = await service.modify('1', view.id, { channelId: '101' });
    expect(moved.channel_id).toBe('101');
  });

  it('when a channel or guild is deleted, then its webhooks go', async () => {
    const { store, service } = world();
    await service.create('1', '100', { name: 'a' });
    await service.create('1', '200', { name: 'b' });
    expect(await service.channelDeleted('100')).toBe(1);
    expect(await service.guildDeleted('20')).toBe(1);
    expect(store.rows.size).toBe(0);
  });
});

describe('WebhooksService.follow', () => {
  it('when a manager follows an announcement channel, then a follower webhook names the source and WEBHOOKS_UPDATE goes to the target', async () => {
    const { store, guilds, service } = world();
    guilds.addChannel({ id: '300', guildId: '30', type: 5, name: 'news' });
    guilds.guilds.set('30', { id: '30', name: 'Source', icon: 'abc' });
    guilds.grant('1', '30', Permission.VIEW_CHANNEL);
    const followed = await service.follow('1', '300', '100');
    expect(followed.channel_id).toBe('300');
    const webhook = await store.byId(followed.webhook_id);
    expect(webhook).toMatchObject({ type: 2, channelId: '100', name: 'Source', avatar: 'abc', sourceChannel: { id: '300', name: 'news' } });
    expect(store.events).toEqual([
      { name: 'WEBHOOKS_UPDATE', audience: { users: ['1', '2'] }, data: { guild_id: '10', channel_id: '100' } },
    ]);
    const [view] = await service.listChannel('1', '100');
    expect(view).toMatchObject({ source_guild: { id: '30', name: 'Source', icon: 'abc' }, source_channel: { id: '300', name: 'news' } });
    expect(view!.token).toBeUndefined();
    expect((await service.follow('1', '300', '100')).webhook_id).toBe(followed.webhook_id);
  });

  it('when the source is hidden, unknown or not announcements, or the target is not the caller’s to manage, then 10003, 50024, 50013', async () => {
    const { guilds, service } = world();
    guilds.addChannel({ id: '300', guildId: '30', type: 5 });
    guilds.addChannel({ id: '301', guildId: '30', type: 0 });
    guilds.guilds.set('30', { id: '30', name: 'Source', icon: null });
    expect(await code(service.follow('1', '300', '100'))).toBe(10003);
    expect(await code(service.follow('1', '999', '100'))).toBe(10003);
    guilds.grant('1', '30', Permission.VIEW_CHANNEL);
    expect(await code(service.follow('1', '301', '100'))).toBe(50024);
    expect(await code(service.follow('1', '300', '300'))).toBe(50013);
    guilds.addChannel({ id: '102', guildId: '10', type: 15 });
    expect(await code(service.follow('1', '300', '102'))).toBe(50024);
  });
});

describe('WebhooksService.createForApplication', () => {
  it('when a manager authorizes an application, then its webhook is type 3 and only the application’s user is shown the token', async () => {
    const { store, guilds, service } = world();
    const made = await service.createForApplication({
      userId: '1',
      channelId: '100',
      applicationId: '500',
      name: 'Builder',
      avatar: 'icon',
      applicationUserId: '900',
    });
    expect(made).toMatchObject({ type: 3, channel_id: '100', guild_id: '10', application_id: '500', name: 'Builder', avatar: 'icon' });
    expect(made.token).toHaveLength(68);
    expect(made.url).toBe(`http://edge/api/webhooks/${made.id}/${made.token}`);
    expect(store.events).toEqual([
      { name: 'WEBHOOKS_UPDATE', audience: { users: ['1', '2'] }, data: { guild_id: '10', channel_id: '100' } },
    ]);
    // The guild's manager sees it without its token; the application's user (no permission there) with it.
    expect((await service.get('1', made.id)).token).toBeUndefined();
    expect((await service.listChannel('1', '100'))[0]!.token).toBeUndefined();
    expect(await service.get('900', made.id)).toMatchObject({ token: made.token, url: made.url });
    guilds.grant('900', '10', Permission.VIEW_CHANNEL | Permission.MANAGE_WEBHOOKS);
    expect((await service.listGuild('900', '10'))[0]!.token).toBe(made.token);
  });

  it('when the user cannot manage webhooks there, the channel is unknown or in another guild, then 50013 and 10003', async () => {
    const { guilds, service } = world();
    const input = { userId: '1', channelId: '100', applicationId: '500', name: 'B', avatar: null, applicationUserId: null };
    guilds.grant('1', '10', Permission.VIEW_CHANNEL);
    expect(await code(service.createForApplication(input))).toBe(50013);
    expect(await code(service.createForApplication({ ...input, channelId: '999' }))).toBe(10003);
    expect(await code(service.createForApplication({ ...input, channelId: '200', guildId: '10' }))).toBe(10003);
  });
});
