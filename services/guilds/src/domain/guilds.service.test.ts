import { describe, expect, it } from 'vitest';
import { code, fieldErrors, world } from '../../test/fakes/world.js';
import { DEFAULT_EVERYONE_PERMISSIONS } from './guilds.service.js';
import { MAX_GUILDS_PER_USER } from './membership.service.js';
import { ALL_PERMISSIONS, Permission } from './permissions.js';

describe('GuildsService.create', () => {
  it('when a user creates a guild, then it has @everyone, a general channel as system channel, the owner as only member, and GUILD_CREATE goes to them', async () => {
    const w = world();
    const owner = w.user();
    const body = await w.guilds.create(owner, { name: 'Home', description: 'ours' });
    const guildId = body.id as string;
    expect(body).toMatchObject({ name: 'Home', owner_id: owner, description: 'ours', icon: null });
    expect(body.roles).toEqual([
      expect.objectContaining({ id: guildId, name: '@everyone', position: 0, permissions: DEFAULT_EVERYONE_PERMISSIONS.toString() }),
    ]);
    const [general] = await w.store.channels.listInGuild(guildId);
    expect(general).toMatchObject({ name: 'general', type: 0 });
    expect(body.system_channel_id).toBe(general!.id);
    expect((await w.store.guilds.get(guildId))!.member_count).toBe(1);
    const [created] = w.store.named('GUILD_CREATE');
    expect(created!.audience).toEqual({ users: [owner] });
    expect(created!.data).toMatchObject({
      id: guildId,
      member_count: 1,
      joined_at: expect.any(String),
      channels: [expect.objectContaining({ name: 'general' })],
    });
  });

  it('when an icon is given, then the guild keeps its hash, not the image', async () => {
    const w = world();
    const body = await w.guilds.create(w.user(), { name: 'Icons', icon: 'data:image/png;base64,AAAA' });
    expect(body.icon).toMatch(/^[0-9a-f]{32}$/);
  });

  it('when auth does not know the caller, then 401 and nothing is made', async () => {
    const w = world();
    expect(await code(w.guilds.create('123', { name: 'x' }))).toBe(0);
    expect(w.store.events).toEqual([]);
  });

  it(`when the caller is already in ${MAX_GUILDS_PER_USER} guilds, then 30001 and no guild is made`, async () => {
    const w = world();
    const owner = w.user();
    for (let i = 0; i < 100; i++) await w.guild(owner);
    expect(await code(w.guilds.create(owner, { name: 'one too many' }))).toBe(30001);
    expect(await w.store.guilds.idsOf(owner)).toHaveLength(100);
  });
});

describe('GuildsService.get', () => {
  it('when a member asks, then the guild with its roles; with counts, the member count too', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner, 'g');
    await w.join(guildId, member);
    expect(await w.guilds.get(member, guildId, false)).toMatchObject({ id: guildId, name: 'g' });
    expect(await w.guilds.get(member, guildId, true)).toMatchObject({ approximate_member_count: 2, approximate_presence_count: 0 });
    expect('approximate_member_count' in (await w.guilds.get(member, guildId, false))).toBe(false);
  });

  it('when the guild does not exist, then 10004', async () => {
    const w = world();
    expect(await code(w.guilds.get(w.user(), '42', false))).toBe(10004);
  });
});

describe('GuildsService.update', () => {
  it('when a member with MANAGE_GUILD edits settings, then they change and the guild hears GUILD_UPDATE', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const body = await w.guilds.update(owner, guildId, { name: 'Renamed', afk_timeout: 60, description: null });
    expect(body).toMatchObject({ name: 'Renamed', afk_timeout: 60, description: null });
    const [update] = w.store.named('GUILD_UPDATE');
    expect(update).toMatchObject({ audience: { guilds: [guildId] }, data: { name: 'Renamed' } });
  });

  it('when a member without MANAGE_GUILD edits, then 50013 and nothing changes', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner, 'Before');
    await w.join(guildId, member);
    expect(await code(w.guilds.update(member, guildId, { name: 'After' }))).toBe(50013);
    expect((await w.store.guilds.get(guildId))!.name).toBe('Before');
    expect(w.store.named('GUILD_UPDATE')).toEqual([]);
  });

  it('when nothing would change, then the guild comes back and no event is written', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner, 'Same');
    expect(await w.guilds.update(owner, guildId, {})).toMatchObject({ name: 'Same' });
    expect(w.store.named('GUILD_UPDATE')).toEqual([]);
  });

  it('when a channel setting names a channel of another guild or none, then 50035 on that field', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const other = await w.guild(owner);
    const [foreign] = await w.store.channels.listInGuild(other);
    expect(await fieldErrors(w.guilds.update(owner, guildId, { afk_channel_id: foreign!.id }))).toEqual({
      afk_channel_id: { _errors: [{ code: 'CHANNEL_INVALID', message: 'Unknown channel.' }] },
    });
    expect(await fieldErrors(w.guilds.update(owner, guildId, { rules_channel_id: '999' }))).toHaveProperty('rules_channel_id');
    const [own] = await w.store.channels.listInGuild(guildId);
    expect(await w.guilds.update(owner, guildId, { rules_channel_id: own!.id })).toMatchObject({ rules_channel_id: own!.id });
  });

  it('when the owner hands the guild to a member, then they own it; to a non-member, 10007; by anyone else, 50013', async () => {
    const w = world();
    const owner = w.user();
    const admin = w.user();
    const stranger = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, admin);
    const role = await w.roles.create(owner, guildId, { permissions: Permission.ADMINISTRATOR });
    await w.members.addRole(owner, guildId, admin, role.id);
    expect(await code(w.guilds.update(admin, guildId, { owner_id: admin }))).toBe(50013);
    expect(await code(w.guilds.update(owner, guildId, { owner_id: stranger }))).toBe(10007);
    expect(await w.guilds.update(owner, guildId, { owner_id: admin })).toMatchObject({ owner_id: admin });
    // The old owner is now an ordinary member.
    expect(await code(w.guilds.delete(owner, guildId))).toBe(50013);
  });
});

describe('GuildsService.delete', () => {
  it('when the owner deletes the guild, then GUILD_DELETE goes to its members and everything in it is gone', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, member);
    await w.guilds.delete(owner, guildId);
    expect(w.store.named('GUILD_DELETE')).toEqual([expect.objectContaining({ audience: { guilds: [guildId] }, data: { id: guildId } })]);
    expect(await w.store.guilds.get(guildId)).toBeUndefined();
    expect(await w.store.channels.listInGuild(guildId)).toEqual([]);
    expect(await w.store.guilds.idsOf(member)).toEqual([]);
  });

  it('when a member who is not the owner deletes, even an administrator, then 50013 and the guild stays', async () => {
    const w = world();
    const owner = w.user();
    const admin = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, admin);
    const role = await w.roles.create(owner, guildId, { permissions: Permission.ADMINISTRATOR });
    await w.members.addRole(owner, guildId, admin, role.id);
    expect(await code(w.guilds.delete(admin, guildId))).toBe(50013);
    expect(await w.store.guilds.get(guildId)).toBeDefined();
  });
});

describe('GuildsService.listMine', () => {
  it('when a user lists their guilds, then each carries their ownership and guild permissions, in id order, a page at a time', async () => {
    const w = world();
    const me = w.user();
    const other = w.user();
    const mine = await w.guild(me, 'mine');
    const theirs = await w.guild(other, 'theirs');
    await w.join(theirs, me);
    const list = await w.guilds.listMine(me, { limit: 200, withCounts: false });
    expect(list).toEqual([
      expect.objectContaining({ id: mine, owner: true, permissions: ALL_PERMISSIONS.toString() }),
      expect.objectContaining({ id: theirs, owner: false, permissions: DEFAULT_EVERYONE_PERMISSIONS.toString() }),
    ]);
    expect((await w.guilds.listMine(me, { limit: 1, withCounts: true }))[0]).toMatchObject({ id: mine, approximate_member_count: 1 });
    expect(await w.guilds.listMine(me, { after: mine, limit: 200, withCounts: false })).toEqual([expect.objectContaining({ id: theirs })]);
    expect(await w.guilds.listMine(me, { before: theirs, limit: 200, withCounts: false })).toEqual([expect.objectContaining({ id: mine })]);
  });

  it("when a member's role grants more, then their listed permissions include it", async () => {
    const w = world();
    const owner = w.user();
    const me = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, me);
    const role = await w.roles.create(owner, guildId, { permissions: Permission.MANAGE_GUILD });
    await w.members.addRole(owner, guildId, me, role.id);
    const [entry] = await w.guilds.listMine(me, { limit: 10, withCounts: false });
    expect(BigInt(entry!.permissions as string) & Permission.MANAGE_GUILD).toBe(Permission.MANAGE_GUILD);
  });
});

describe('GuildsService.leave', () => {
  it('when a member leaves, then they are gone; leaving again, or an unknown guild, 10004', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, member);
    await w.guilds.leave(member, guildId);
    expect(await w.store.members.get(guildId, member)).toBeUndefined();
    expect(w.store.named('GUILD_MEMBER_REMOVE')).toHaveLength(1);
    expect(await code(w.guilds.leave(member, guildId))).toBe(10004);
    expect(await code(w.guilds.leave(member, '777'))).toBe(10004);
  });

  it('when the owner tries to leave, then 50055 and they stay', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    expect(await code(w.guilds.leave(owner, guildId))).toBe(50055);
    expect(await w.store.members.get(guildId, owner)).toBeDefined();
  });
});
