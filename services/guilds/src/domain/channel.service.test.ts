import { describe, expect, it } from 'vitest';
import { code, fieldErrors, world, type World } from '../../test/fakes/world.js';
import { MAX_CATEGORY_CHANNELS, MAX_GUILD_CHANNELS } from './channel.service.js';
import { Permission } from './permissions.js';
import { ChannelType } from './records.js';

/** An owner, a member, and a role `managers` with MANAGE_CHANNELS (plus `extra`) given to a third user. */
async function guild(w: World, extra = 0n) {
  const owner = w.user();
  const member = w.user();
  const manager = w.user();
  const guildId = await w.guild(owner);
  await w.join(guildId, member, manager);
  const role = (await w.roles.create(owner, guildId, { name: 'managers', permissions: Permission.MANAGE_CHANNELS | extra })).id as string;
  await w.members.addRole(owner, guildId, manager, role);
  const [general] = await w.store.channels.listInGuild(guildId);
  return { owner, member, manager, guildId, role, general: general!.id };
}

const hideFrom = (id: string) => [{ id, type: 0, deny: Permission.VIEW_CHANNEL }];

describe('ChannelService.create', () => {
  it('when a manager creates channels, then text names are lowercased with dashes, voice ones kept, positions follow, and CHANNEL_CREATE goes to the guild', async () => {
    const w = world();
    const g = await guild(w);
    const text = await w.channels.channels.create(g.manager, g.guildId, { name: 'Off Topic', topic: 'chat' });
    const voice = await w.channels.channels.create(g.manager, g.guildId, { name: 'Voice Room', type: ChannelType.GUILD_VOICE });
    expect(text).toMatchObject({ name: 'off-topic', topic: 'chat', type: 0, position: 1, guild_id: g.guildId });
    expect(voice).toMatchObject({ name: 'Voice Room', bitrate: 64000, user_limit: 0, position: 2 });
    expect('topic' in voice).toBe(false);
    expect(w.store.named('CHANNEL_CREATE').map((e) => e.audience)).toEqual([{ guilds: [g.guildId] }, { guilds: [g.guildId] }]);
  });

  it('when a channel is hidden from @everyone, then only those who see it hear of it, and only they find it', async () => {
    const w = world();
    const g = await guild(w);
    const secret = await w.channels.channels.create(g.owner, g.guildId, { name: 'secret', permission_overwrites: hideFrom(g.guildId) });
    const audience = w.store.named('CHANNEL_CREATE')[0]!.audience.users!;
    expect([...audience].sort()).toEqual([g.owner].sort());
    expect(await code(w.channels.get(g.member, secret.id as string))).toBe(50001);
    expect((await w.channels.channels.list(g.member, g.guildId)).map((c) => c.name)).toEqual(['general']);
    expect((await w.channels.channels.list(g.owner, g.guildId)).map((c) => c.name)).toEqual(['general', 'secret']);
  });

  it('when a member without MANAGE_CHANNELS creates one, then 50013; outside the guild, 50001; in no guild at all, 10004', async () => {
    const w = world();
    const g = await guild(w);
    expect(await code(w.channels.channels.create(g.member, g.guildId, { name: 'x' }))).toBe(50013);
    expect(await code(w.channels.channels.create(w.user(), g.guildId, { name: 'x' }))).toBe(50001);
    expect(await code(w.channels.channels.create(g.owner, '4242', { name: 'x' }))).toBe(10004);
    expect(w.store.named('CHANNEL_CREATE')).toEqual([]);
  });

  it('when the overwrites grant what the manager lacks, or MANAGE_ROLES without being an administrator, then 50013', async () => {
    const w = world();
    const g = await guild(w);
    const grant = (allow: bigint) =>
      w.channels.channels.create(g.manager, g.guildId, { name: 'x', permission_overwrites: [{ id: g.member, type: 1, allow }] });
    expect(await code(grant(Permission.BAN_MEMBERS))).toBe(50013);
    expect(await code(grant(Permission.MANAGE_ROLES))).toBe(50013);
    expect(await code(grant(Permission.MANAGE_CHANNELS))).toBe('ok');
  });

  it('when the parent is not a category of this guild, or the channel is a category itself, then 50035 on parent_id', async () => {
    const w = world();
    const g = await guild(w);
    const category = await w.channels.channels.create(g.owner, g.guildId, { name: 'Cat', type: ChannelType.GUILD_CATEGORY });
    expect(await w.channels.channels.create(g.owner, g.guildId, { name: 'in', parent_id: category.id as string })).toMatchObject({
      parent_id: category.id,
    });
    expect(await fieldErrors(w.channels.channels.create(g.owner, g.guildId, { name: 'x', parent_id: g.general }))).toHaveProperty(
      'parent_id',
    );
    expect(
      await fieldErrors(
        w.channels.channels.create(g.owner, g.guildId, { name: 'x', type: ChannelType.GUILD_CATEGORY, parent_id: category.id as string }),
      ),
    ).toHaveProperty('parent_id');
    const otherCategory = await w.channels.channels.create(g.owner, await w.guild(g.owner), {
      name: 'C',
      type: ChannelType.GUILD_CATEGORY,
    });
    expect(
      await fieldErrors(w.channels.channels.create(g.owner, g.guildId, { name: 'x', parent_id: otherCategory.id as string })),
    ).toHaveProperty('parent_id');
  });

  it(`when a category holds ${MAX_CATEGORY_CHANNELS} channels, then one more is refused on parent_id`, async () => {
    const w = world();
    const g = await guild(w);
    const category = (await w.channels.channels.create(g.owner, g.guildId, { name: 'Cat', type: ChannelType.GUILD_CATEGORY })).id as string;
    for (let i = 0; i < MAX_CATEGORY_CHANNELS; i++)
      await w.channels.channels.create(g.owner, g.guildId, { name: `c${i}`, parent_id: category });
    expect(await fieldErrors(w.channels.channels.create(g.owner, g.guildId, { name: 'more', parent_id: category }))).toMatchObject({
      parent_id: { _errors: [{ code: 'CHANNEL_PARENT_MAX_CHANNELS' }] },
    });
  });

  it(`when the guild has ${MAX_GUILD_CHANNELS} channels, then 30013`, async () => {
    const w = world();
    const g = await guild(w);
    for (let i = 1; i < MAX_GUILD_CHANNELS; i++) await w.channels.channels.create(g.owner, g.guildId, { name: `c${i}` });
    expect(await w.store.channels.countInGuild(g.guildId)).toBe(MAX_GUILD_CHANNELS);
    expect(await code(w.channels.channels.create(g.owner, g.guildId, { name: 'one more' }))).toBe(30013);
  });

  it('when a name is only spaces, or a text topic is longer than 1024 (a forum 4096), then 50035', async () => {
    const w = world();
    const g = await guild(w);
    expect(await fieldErrors(w.channels.channels.create(g.owner, g.guildId, { name: '   ' }))).toHaveProperty('name');
    expect(await fieldErrors(w.channels.channels.create(g.owner, g.guildId, { name: 't', topic: 'x'.repeat(1025) }))).toHaveProperty(
      'topic',
    );
    expect(
      await code(w.channels.channels.create(g.owner, g.guildId, { name: 'f', type: ChannelType.GUILD_FORUM, topic: 'x'.repeat(4096) })),
    ).toBe('ok');
  });
});

describe('ChannelApi.modify and delete of guild channels', () => {
  it('when a manager renames a channel and sets its topic, then CHANNEL_UPDATE carries it', async () => {
    const w = world();
    const g = await guild(w);
    expect(await w.channels.modify(g.manager, g.general, { name: 'Main Hall', topic: 'hi', nsfw: true })).toMatchObject({
      name: 'main-hall',
      topic: 'hi',
      nsfw: true,
    });
    expect(w.store.named('CHANNEL_UPDATE').at(-1)!.data).toMatchObject({ id: g.general, name: 'main-hall' });
  });

  it('when overwrites are replaced, then MANAGE_ROLES is needed; ones sent back unchanged are no grant of the caller', async () => {
    const w = world();
    const g = await guild(w, Permission.MANAGE_ROLES);
    await w.channels.channels.putOverwrite(g.owner, g.general, { id: g.member, type: 1, allow: Permission.BAN_MEMBERS, deny: 0n });
    const sentBack = [{ id: g.member, type: 1, allow: Permission.BAN_MEMBERS, deny: 0n }];
    expect(await code(w.channels.modify(g.manager, g.general, { permission_overwrites: sentBack }))).toBe('ok');
    expect(
      await code(
        w.channels.modify(g.manager, g.general, { permission_overwrites: [{ id: g.member, type: 1, allow: Permission.KICK_MEMBERS }] }),
      ),
    ).toBe(50013);
    expect(await code(w.channels.modify(g.member, g.general, { topic: 'x' }))).toBe(50013);
  });

  it('when a channel stops being visible to a member, then the update still reaches them (they hear it go)', async () => {
    const w = world();
    const g = await guild(w, Permission.MANAGE_ROLES);
    await w.channels.modify(g.owner, g.general, { permission_overwrites: hideFrom(g.guildId) });
    // Everyone who saw it before the change hears of it, as users (not everyone sees it after).
    expect([...w.store.named('CHANNEL_UPDATE').at(-1)!.audience.users!].sort()).toEqual([g.owner, g.member, g.manager].sort());
    await w.channels.modify(g.owner, g.general, { topic: 'now hidden' });
    expect(w.store.named('CHANNEL_UPDATE').at(-1)!.audience.users).toEqual([g.owner]);
  });

  it('when a category is deleted, then its channels stay without one and each is announced; the deletion answers the channel', async () => {
    const w = world();
    const g = await guild(w);
    const category = (await w.channels.channels.create(g.owner, g.guildId, { name: 'Cat', type: ChannelType.GUILD_CATEGORY })).id as string;
    const child = (await w.channels.channels.create(g.owner, g.guildId, { name: 'child', parent_id: category })).id as string;
    expect(await w.channels.delete(g.manager, category)).toMatchObject({ id: category, type: ChannelType.GUILD_CATEGORY });
    expect((await w.store.channels.get(child))!.parent_id).toBeNull();
    expect(w.store.named('CHANNEL_DELETE').map((e) => (e.data as { id: string }).id)).toEqual([category]);
    expect(w.store.named('CHANNEL_UPDATE').at(-1)!.data).toMatchObject({ id: child, parent_id: null });
  });

  it('when a member without MANAGE_CHANNELS deletes, then 50013; an unknown channel, 10003', async () => {
    const w = world();
    const g = await guild(w);
    expect(await code(w.channels.delete(g.member, g.general))).toBe(50013);
    expect(await code(w.channels.delete(g.owner, '123'))).toBe(10003);
    expect(await w.store.channels.get(g.general)).toBeDefined();
  });
});

describe('ChannelService.reorder', () => {
  it('when channels are moved and re-parented with lock_permissions, then they take the category’s overwrites; each move is announced', async () => {
    const w = world();
    const g = await guild(w, Permission.MANAGE_ROLES);
    const category = (
      await w.channels.channels.create(g.owner, g.guildId, {
        name: 'Cat',
        type: ChannelType.GUILD_CATEGORY,
        permission_overwrites: hideFrom(g.guildId),
      })
    ).id as string;
    const before = w.store.named('CHANNEL_UPDATE').length;
    await w.channels.channels.reorder(g.manager, g.guildId, [
      { id: g.general, position: 5, parent_id: category, lock_permissions: true },
      { id: category, position: 0 },
    ]);
    expect(await w.store.channels.get(g.general)).toMatchObject({ position: 5, parent_id: category });
    expect((await w.store.channels.overwrites(g.general)).map((o) => o.id)).toEqual([g.guildId]);
    expect(w.store.named('CHANNEL_UPDATE').length - before).toBe(2);
  });

  it('when a channel of another guild is named, then 50035 at its index and nothing moves', async () => {
    const w = world();
    const g = await guild(w);
    const [foreign] = await w.store.channels.listInGuild(await w.guild(g.owner));
    expect(
      await fieldErrors(
        w.channels.channels.reorder(g.owner, g.guildId, [
          { id: g.general, position: 3 },
          { id: foreign!.id, position: 1 },
        ]),
      ),
    ).toHaveProperty('1');
    expect((await w.store.channels.get(g.general))!.position).toBe(0);
  });
});

describe('ChannelService: overwrites', () => {
  it('when an overwrite is put for a role or a member, then it is kept; an unknown target is 10011 or 10007', async () => {
    const w = world();
    const g = await guild(w, Permission.MANAGE_ROLES);
    await w.channels.channels.putOverwrite(g.manager, g.general, { id: g.role, type: 0, allow: Permission.SEND_MESSAGES, deny: 0n });
    await w.channels.channels.putOverwrite(g.manager, g.general, { id: g.member, type: 1, allow: 0n, deny: Permission.SEND_MESSAGES });
    expect((await w.store.channels.overwrites(g.general)).map((o) => o.id).sort()).toEqual([g.role, g.member].sort());
    expect(await code(w.channels.channels.putOverwrite(g.manager, g.general, { id: '77', type: 0, allow: 0n, deny: 0n }))).toBe(10011);
    expect(await code(w.channels.channels.putOverwrite(g.manager, g.general, { id: '77', type: 1, allow: 0n, deny: 0n }))).toBe(10007);
    await w.channels.channels.deleteOverwrite(g.manager, g.general, g.member);
    expect((await w.store.channels.overwrites(g.general)).map((o) => o.id)).toEqual([g.role]);
  });

  it('when a member denied VIEW_CHANNEL by an overwrite reads the channel, then 50001; their role allowing it wins over @everyone denying it', async () => {
    const w = world();
    const g = await guild(w, Permission.MANAGE_ROLES);
    await w.channels.channels.putOverwrite(g.owner, g.general, { id: g.guildId, type: 0, allow: 0n, deny: Permission.VIEW_CHANNEL });
    expect(await code(w.channels.get(g.member, g.general))).toBe(50001);
    expect(await code(w.channels.get(g.manager, g.general))).toBe(50001);
    await w.channels.channels.putOverwrite(g.owner, g.general, { id: g.role, type: 0, allow: Permission.VIEW_CHANNEL, deny: 0n });
    expect(await w.channels.get(g.manager, g.general)).toMatchObject({ id: g.general });
  });

  it('when overwrites are put on a thread or a DM, then 50024', async () => {
    const w = world();
    const g = await guild(w);
    const thread = await w.channels.threads.create(g.owner, g.general, { name: 't', type: ChannelType.PUBLIC_THREAD });
    expect(await code(w.channels.channels.putOverwrite(g.owner, thread.id as string, { id: g.member, type: 1, allow: 0n, deny: 0n }))).toBe(
      50024,
    );
  });
});
