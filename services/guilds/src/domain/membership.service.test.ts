import { describe, expect, it } from 'vitest';
import { channelView, guildCreateView } from '@kith/platform';
import { code, world } from '../../test/fakes/world.js';
import { MAX_GUILDS_PER_USER } from './membership.service.js';
import { Permission } from './permissions.js';

describe('MembershipService.join', () => {
  it('when a user joins, then the count goes up, they get GUILD_CREATE (what the answer carries) and the guild GUILD_MEMBER_ADD', async () => {
    const w = world();
    const owner = w.user();
    const joiner = w.user('joiner');
    const guildId = await w.guild(owner);
    const joined = await w.membership.join(guildId, joiner, { temporary: true });
    if (joined.error !== 0) throw new Error('refused');
    expect(joined.alreadyMember).toBe(false);
    expect(joined.member).toMatchObject({ user_id: joiner, temporary: true, role_ids: [] });
    expect(joined.guild.guild.approximateMemberCount).toBe(2);
    const create = w.store.named('GUILD_CREATE').at(-1)!;
    expect(create.audience).toEqual({ users: [joiner] });
    expect(create.data).toEqual(guildCreateView(joined.guild));
    expect(create.data).toMatchObject({ members: [expect.objectContaining({ user: expect.objectContaining({ username: 'joiner' }) })] });
    expect(w.store.named('GUILD_MEMBER_ADD')).toEqual([
      expect.objectContaining({
        audience: { guilds: [guildId] },
        data: expect.objectContaining({ guild_id: guildId, user: expect.objectContaining({ id: joiner }) }),
      }),
    ]);
  });

  it('when a user joins twice, then the second answers already_member and writes nothing', async () => {
    const w = world();
    const owner = w.user();
    const joiner = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, joiner);
    const events = w.store.events.length;
    expect(await w.membership.join(guildId, joiner)).toMatchObject({ error: 0, alreadyMember: true });
    expect(w.store.events).toHaveLength(events);
    expect((await w.store.guilds.get(guildId))!.member_count).toBe(2);
  });

  it('when roles come with the join, then only assignable ones of this guild are given (not @everyone, not unknown, not managed)', async () => {
    const w = world();
    const owner = w.user();
    const joiner = w.user();
    const guildId = await w.guild(owner);
    const role = (await w.roles.create(owner, guildId, { name: 'invited' })).id as string;
    const elsewhere = (await w.roles.create(owner, await w.guild(owner), { name: 'other guild' })).id as string;
    const joined = await w.membership.join(guildId, joiner, { roleIds: [role, role, guildId, elsewhere, '5'] });
    expect(joined).toMatchObject({ error: 0, member: { role_ids: [role] } });
  });

  it('when the guild has member verification on, then a joiner is pending with a STARTED join request, unless the join bypasses it', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    await w.verification.update(owner, guildId, { enabled: true });
    const pending = w.user();
    expect(await w.membership.join(guildId, pending)).toMatchObject({ error: 0, member: { pending: true } });
    expect(w.store.named('GUILD_JOIN_REQUEST_CREATE')).toEqual([
      expect.objectContaining({ audience: { users: [pending] }, data: expect.objectContaining({ guild_id: guildId, status: 'STARTED' }) }),
    ]);
    expect(await w.membership.join(guildId, w.user(), { bypassVerification: true })).toMatchObject({ member: { pending: false } });
    expect(w.store.named('GUILD_JOIN_REQUEST_CREATE')).toHaveLength(1);
  });

  it('when a guest joins with a session, then they are no member: that session alone hears GUILD_CREATE of the one channel, and GUILD_DELETE when the user goes offline', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const [channel] = await w.store.channels.listInGuild(guildId);
    const guest = w.user('guest');
    const admitted = await w.membership.join(guildId, guest, { guest: true, sessionId: 'sess1', channelId: channel!.id });
    expect(admitted).toMatchObject({ error: 0, alreadyMember: false, member: { flags: 1 << 4 } });
    expect(await w.store.members.get(guildId, guest)).toBeUndefined();
    expect((await w.store.guilds.get(guildId))!.member_count).toBe(1);
    const create = w.store.named('GUILD_CREATE').at(-1)!;
    expect(create.audience).toEqual({ sessions: [{ id: 'sess1', user_id: guest }] });
    expect((create.data as { channels: { id: string }[] }).channels.map((c) => c.id)).toEqual([channel!.id]);
    expect(w.store.named('GUILD_MEMBER_ADD')).toEqual([]);
    await w.membership.endTemporary(guest);
    expect(w.store.named('GUILD_DELETE')).toEqual([{ name: 'GUILD_DELETE', audience: create.audience, data: { id: guildId } }]);
    expect(await w.membership.guests.end({ userId: guest })).toEqual([]);
  });

  it('when a guest is banned or names a channel of another guild, then 40007 or 10004', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const [elsewhere] = await w.store.channels.listInGuild(await w.guild(owner));
    expect((await w.membership.join(guildId, w.user(), { guest: true, sessionId: 's', channelId: elsewhere!.id })).error).toBe(10004);
    const banned = w.user();
    await w.members.putBan(owner, guildId, banned, null);
    const [channel] = await w.store.channels.listInGuild(guildId);
    expect((await w.membership.join(guildId, banned, { guest: true, sessionId: 's', channelId: channel!.id })).error).toBe(40007);
  });

  it('when a guest joins without a session, then the member carries the guest flag', async () => {
    const w = world();
    const guildId = await w.guild(w.user());
    expect(await w.membership.join(guildId, w.user(), { guest: true })).toMatchObject({ member: { flags: 1 << 4 } });
  });

  it('when the guild is unknown, the user banned, or already in 100 guilds, then 10004, 40007, 30001 and nothing is written', async () => {
    const w = world();
    const owner = w.user();
    const joiner = w.user();
    const guildId = await w.guild(owner);
    expect((await w.membership.join('404', joiner)).error).toBe(10004);
    await w.members.putBan(owner, guildId, joiner, null);
    expect((await w.membership.join(guildId, joiner)).error).toBe(40007);
    const busy = w.user();
    for (let i = 0; i < MAX_GUILDS_PER_USER; i++) await w.guild(busy);
    const events = w.store.events.length;
    expect((await w.membership.join(await w.guild(owner), busy)).error).toBe(30001);
    expect(w.store.events.length).toBe(events + 1);
    expect(await w.store.guilds.idsOf(busy)).toHaveLength(MAX_GUILDS_PER_USER);
  });

  it('when auth does not know the user, then 10013', async () => {
    const w = world();
    const guildId = await w.guild(w.user());
    expect(await code(w.membership.join(guildId, '987'))).toBe(10013);
  });

  it('when a channel is hidden from @everyone, then the joining member’s GUILD_CREATE leaves it out', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const secret = await w.channels.channels.create(owner, guildId, {
      name: 'secret',
      permission_overwrites: [{ id: guildId, type: 0, deny: Permission.VIEW_CHANNEL }],
    });
    const joined = await w.membership.join(guildId, w.user());
    if (joined.error !== 0) throw new Error('refused');
    expect(joined.guild.channels.map((c) => c.name)).toEqual(['general']);
    const mine = (await w.lookups.readyState(owner)).guilds[0]!;
    expect(mine.channels.map((c) => c.name)).toEqual(['general', 'secret']);
    expect(channelView(mine.channels[1]!)).toMatchObject({
      id: secret.id,
      permission_overwrites: [expect.objectContaining({ id: guildId })],
    });
  });
});

describe('MembershipService.removeUnlessOwner', () => {
  it('when a member is removed, then removed; again, not_member; the owner, owner; an unknown guild, unknown_guild', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, member);
    expect(await w.membership.removeUnlessOwner(guildId, member)).toBe('removed');
    expect(await w.membership.removeUnlessOwner(guildId, member)).toBe('not_member');
    expect(await w.membership.removeUnlessOwner(guildId, owner)).toBe('owner');
    expect(await w.membership.removeUnlessOwner('1', owner)).toBe('unknown_guild');
    expect(w.store.named('GUILD_MEMBER_REMOVE')).toHaveLength(1);
    expect((await w.store.guilds.get(guildId))!.member_count).toBe(1);
  });

  it('when the removed user is gone from auth, then GUILD_MEMBER_REMOVE still names them, as a deleted user', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, member);
    w.users.known.delete(member);
    await w.membership.removeUnlessOwner(guildId, member);
    expect(w.store.named('GUILD_MEMBER_REMOVE')[0]!.data).toMatchObject({ user: { id: member, username: 'deleted_user' } });
  });
});

describe('LookupService', () => {
  it('when other services look up a guild and a member, then the typed guild (roles included) and member come back; unknown ones, nothing', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner, 'Lookup');
    expect(await w.lookups.guild(guildId)).toMatchObject({
      id: guildId,
      name: 'Lookup',
      ownerId: owner,
      icon: '',
      roles: [expect.objectContaining({ id: guildId })],
    });
    expect(await w.lookups.guild('3')).toBeUndefined();
    expect(await w.lookups.member(guildId, owner)).toMatchObject({ userId: owner, nick: '', roleIds: [] });
    expect(await w.lookups.member(guildId, '3')).toBeUndefined();
  });

  it('when member ids are paged and mutual guilds asked, then ids come in order and only shared guilds count', async () => {
    const w = world();
    const a = w.user();
    const b = w.user();
    const c = w.user();
    const shared = await w.guild(a);
    await w.guild(a);
    await w.join(shared, b, c);
    expect(await w.lookups.memberIds(shared, null, 2)).toEqual([a, b]);
    expect(await w.lookups.memberIds(shared, b, 5)).toEqual([c]);
    expect(await w.lookups.mutualGuilds(a, b)).toEqual([{ id: shared, memberCount: 3, nick: null }]);
  });

  it('when READY state is read, then every guild as GUILD_CREATE carries it and the open private channels with every participant', async () => {
    const w = world();
    const me = w.user();
    const friend = w.user();
    const guildId = await w.guild(me);
    const dm = await w.channels.dms.open(me, { recipient_id: friend });
    const ready = await w.lookups.readyState(me);
    expect(ready.guilds.map((g) => g.guild.id)).toEqual([guildId]);
    expect(ready.guilds[0]!.members.map((m) => m.userId)).toEqual([me]);
    expect(ready.privateChannels.map((c) => [c.id, [...c.recipientIds].sort()])).toEqual([[dm.id, [me, friend].sort()]]);
    expect(ready.privateChannels.map((c) => channelView(c, me))).toEqual(await w.channels.dms.list(me));
  });
});

describe('PermissionService', () => {
  it('when a member is checked, then their permissions and whether every required bit is there; a non-member, nothing', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, member);
    const [general] = await w.store.channels.listInGuild(guildId);
    expect(await w.permissions.check(member, guildId, undefined, String(Permission.VIEW_CHANNEL))).toMatchObject({
      member: true,
      allowed: true,
    });
    expect(await w.permissions.check(member, guildId, general!.id, String(Permission.MANAGE_GUILD))).toMatchObject({
      member: true,
      allowed: false,
    });
    expect(await w.permissions.check(w.user(), guildId, undefined, '')).toEqual({ member: false, allowed: false, permissions: 0n });
    // A channel of another guild is no channel of this one.
    const [foreign] = await w.store.channels.listInGuild(await w.guild(owner));
    expect(await w.permissions.check(owner, guildId, foreign!.id, '')).toMatchObject({ member: false });
  });

  it('when `required` is not a 64-bit decimal bitfield, then 50035', async () => {
    const w = world();
    for (const required of ['-1', '0x10', '18446744073709551616', 'abc'])
      expect(await code(w.permissions.check('1', '2', undefined, required))).toBe(50035);
  });
});

describe('MembershipService.endTemporary', () => {
  it('when a temporary member goes offline, then they leave (GUILD_MEMBER_REMOVE, GUILD_DELETE), unless given a role since; lasting memberships stay', async () => {
    const w = world();
    const owner = w.user();
    const user = w.user();
    const [temporary, kept, lasting] = [await w.guild(owner), await w.guild(owner), await w.guild(owner)];
    await w.membership.join(temporary, user, { temporary: true });
    const role = (await w.roles.create(owner, kept, { name: 'stays' })).id as string;
    await w.membership.join(kept, user, { temporary: true, roleIds: [role] });
    await w.membership.join(lasting, user);
    expect(await w.membership.endTemporary(user)).toEqual([temporary]);
    expect(await w.store.members.get(temporary, user)).toBeUndefined();
    expect(await w.store.members.get(kept, user)).toBeDefined();
    expect(await w.store.members.get(lasting, user)).toBeDefined();
    expect(w.store.named('GUILD_DELETE').at(-1)).toMatchObject({ audience: { users: [user] }, data: { id: temporary } });
    expect(w.store.named('GUILD_MEMBER_REMOVE').at(-1)).toMatchObject({ audience: { guilds: [temporary] } });
    expect(await w.membership.endTemporary(user)).toEqual([]);
  });
});
