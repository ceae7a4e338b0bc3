import { describe, expect, it } from 'vitest';
import { code, world, type World } from '../../test/fakes/world.js';
import { Permission } from './permissions.js';

/** A guild with an owner, a moderator (role `mod` with `permissions`, position 2), two plain members and a role `low` (position 1). */
async function guildWithModerator(w: World, permissions: bigint) {
  const owner = w.user('owner');
  const moderator = w.user('moderator');
  const member = w.user('member');
  const other = w.user('other');
  const guildId = await w.guild(owner);
  await w.join(guildId, moderator, member, other);
  // A new role goes in at position 1, above @everyone, pushing the others up.
  const mod = await w.roles.create(owner, guildId, { name: 'mod', permissions });
  const low = await w.roles.create(owner, guildId, { name: 'low' });
  await w.members.addRole(owner, guildId, moderator, mod.id as string);
  return { owner, moderator, member, other, guildId, low: low.id as string, mod: mod.id as string };
}

describe('MembersService: reading', () => {
  it('when a member lists members, then they come in id order a page at a time, each with its user', async () => {
    const w = world();
    const owner = w.user('ana');
    const guildId = await w.guild(owner);
    const others = [w.user('bo'), w.user('cy')];
    await w.join(guildId, ...others);
    const first = await w.members.list(others[0]!, guildId, null, 2);
    expect(first.map((m) => m.user.id)).toEqual([owner, others[0]]);
    expect(first[0]!.user).toMatchObject({ username: 'ana', global_name: null, flags: 0, primary_guild: null });
    expect((await w.members.list(owner, guildId, others[0]!, 10)).map((m) => m.user.id)).toEqual([others[1]]);
    expect(await w.members.get(owner, guildId, others[1]!)).toMatchObject({ user: { id: others[1], username: 'cy' }, roles: [] });
  });

  it('when a member is gone from auth, then they still render, as a deleted user', async () => {
    const w = world();
    const owner = w.user();
    const gone = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, gone);
    w.users.known.delete(gone);
    expect((await w.members.get(owner, guildId, gone)).user).toMatchObject({
      id: gone,
      username: 'deleted_user',
      global_name: 'Deleted User',
    });
  });

  it('when the target is not a member, then 10007; when the caller is not, 50001', async () => {
    const w = world();
    const owner = w.user();
    const outsider = w.user();
    const guildId = await w.guild(owner);
    expect(await code(w.members.get(owner, guildId, outsider))).toBe(10007);
    expect(await code(w.members.list(outsider, guildId, null, 10))).toBe(50001);
  });
});

describe('MembersService.update', () => {
  it('when a member changes their own nickname with CHANGE_NICKNAME, then it is set and GUILD_MEMBER_UPDATE is written; "" clears it', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, member);
    expect(await w.members.update(member, guildId, member, { nick: 'Nick' })).toMatchObject({ nick: 'Nick' });
    expect(w.store.named('GUILD_MEMBER_UPDATE')).toEqual([
      expect.objectContaining({ audience: { guilds: [guildId] }, data: expect.objectContaining({ guild_id: guildId, nick: 'Nick' }) }),
    ]);
    expect(await w.members.update(member, guildId, member, { nick: '' })).toMatchObject({ nick: null });
  });

  it("when a moderator with MANAGE_NICKNAMES renames a lower member, then it works; the owner's or an equal's nickname, 50013", async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.MANAGE_NICKNAMES);
    expect(await w.members.update(g.moderator, g.guildId, g.member, { nick: 'x' })).toMatchObject({ nick: 'x' });
    expect(await code(w.members.update(g.moderator, g.guildId, g.owner, { nick: 'x' }))).toBe(50013);
    await w.members.addRole(g.owner, g.guildId, g.member, g.mod);
    expect(await code(w.members.update(g.moderator, g.guildId, g.member, { nick: 'y' }))).toBe(50013);
  });

  it('when roles are set, then each added or removed one must be below the actor; an unknown role is 10011', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.MANAGE_ROLES);
    expect(await w.members.update(g.moderator, g.guildId, g.member, { roles: [g.low] })).toMatchObject({ roles: [g.low] });
    expect(await code(w.members.update(g.moderator, g.guildId, g.member, { roles: [g.low, g.mod] }))).toBe(50013);
    expect(await code(w.members.update(g.moderator, g.guildId, g.member, { roles: ['123'] }))).toBe(10011);
    expect((await w.store.members.get(g.guildId, g.member))!.role_ids).toEqual([g.low]);
    expect(await w.members.update(g.moderator, g.guildId, g.member, { roles: [] })).toMatchObject({ roles: [] });
  });

  it('when a moderator times a member out, then MODERATE_MEMBERS is needed and nobody times themself out', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.MODERATE_MEMBERS);
    const until = new Date(Date.now() + 60_000).toISOString();
    expect(await w.members.update(g.moderator, g.guildId, g.member, { communication_disabled_until: until })).toMatchObject({
      communication_disabled_until: until,
    });
    expect(await code(w.members.update(g.member, g.guildId, g.other, { communication_disabled_until: until }))).toBe(50013);
    expect(await code(w.members.update(g.moderator, g.guildId, g.moderator, { communication_disabled_until: until }))).toBe(50013);
  });

  it('when a timed-out member asks for what their roles grant, then they have only what a timeout leaves', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.MODERATE_MEMBERS | Permission.MANAGE_NICKNAMES);
    await w.members.update(g.owner, g.guildId, g.moderator, { communication_disabled_until: new Date(Date.now() + 60_000).toISOString() });
    expect(await code(w.members.update(g.moderator, g.guildId, g.member, { nick: 'x' }))).toBe(50013);
    w.store.now = () => Date.now() + 120_000;
    expect(await w.members.update(g.moderator, g.guildId, g.member, { nick: 'x' })).toMatchObject({ nick: 'x' });
  });

  it('when nothing changes, then the member comes back and no event is written', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    expect(await w.members.update(owner, guildId, owner, {})).toMatchObject({ user: { id: owner } });
    expect(w.store.named('GUILD_MEMBER_UPDATE')).toEqual([]);
  });
});

describe('MembersService: member roles', () => {
  it('when a role is put on a member twice, then one event; removing it twice, one event', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.MANAGE_ROLES);
    await w.members.addRole(g.moderator, g.guildId, g.member, g.low);
    await w.members.addRole(g.moderator, g.guildId, g.member, g.low);
    expect((await w.store.members.get(g.guildId, g.member))!.role_ids).toEqual([g.low]);
    await w.members.removeRole(g.moderator, g.guildId, g.member, g.low);
    await w.members.removeRole(g.moderator, g.guildId, g.member, g.low);
    // The owner gave the moderator their role: one event, then one add and one removal.
    expect(w.store.named('GUILD_MEMBER_UPDATE')).toHaveLength(3);
  });

  it('when the role is @everyone or unknown, then 10011; at or above the actor, 50013; the member unknown, 10007', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.MANAGE_ROLES);
    expect(await code(w.members.addRole(g.moderator, g.guildId, g.member, g.guildId))).toBe(10011);
    expect(await code(w.members.addRole(g.moderator, g.guildId, g.member, '55'))).toBe(10011);
    expect(await code(w.members.addRole(g.moderator, g.guildId, g.member, g.mod))).toBe(50013);
    expect(await code(w.members.addRole(g.moderator, g.guildId, '66', g.low))).toBe(10007);
    expect(await code(w.members.addRole(g.member, g.guildId, g.other, g.low))).toBe(50013);
  });
});

describe('MembersService.kick', () => {
  it('when a moderator with KICK_MEMBERS kicks a lower member, then they are gone: the guild hears the removal, they hear GUILD_DELETE', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.KICK_MEMBERS);
    await w.members.kick(g.moderator, g.guildId, g.member);
    expect(await w.store.members.get(g.guildId, g.member)).toBeUndefined();
    expect((await w.store.guilds.get(g.guildId))!.member_count).toBe(3);
    expect(w.store.named('GUILD_MEMBER_REMOVE')).toEqual([
      expect.objectContaining({ data: { guild_id: g.guildId, user: expect.objectContaining({ id: g.member }) } }),
    ]);
    expect(w.store.named('GUILD_DELETE')).toEqual([expect.objectContaining({ audience: { users: [g.member] } })]);
  });

  it('when the target is the owner, an equal, or not a member, then 50013, 50013, 10007; without KICK_MEMBERS, 50013', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.KICK_MEMBERS);
    expect(await code(w.members.kick(g.moderator, g.guildId, g.owner))).toBe(50013);
    await w.members.addRole(g.owner, g.guildId, g.member, g.mod);
    expect(await code(w.members.kick(g.moderator, g.guildId, g.member))).toBe(50013);
    expect(await code(w.members.kick(g.moderator, g.guildId, '99'))).toBe(10007);
    expect(await code(w.members.kick(g.other, g.guildId, g.member))).toBe(50013);
    expect(w.store.named('GUILD_MEMBER_REMOVE')).toEqual([]);
  });
});

describe('MembersService: bans', () => {
  it('when a member is banned, then they are removed, the ban is kept with its reason, and the guild hears GUILD_BAN_ADD', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.BAN_MEMBERS);
    await w.members.putBan(g.moderator, g.guildId, g.member, 'spam');
    expect(await w.store.members.get(g.guildId, g.member)).toBeUndefined();
    expect(await w.members.ban(g.moderator, g.guildId, g.member)).toMatchObject({ user: { id: g.member }, reason: 'spam' });
    expect(w.store.named('GUILD_BAN_ADD')).toEqual([
      expect.objectContaining({ data: { guild_id: g.guildId, user: expect.objectContaining({ id: g.member }) } }),
    ]);
    // A banned user cannot come back through an invite.
    expect((await w.membership.join(g.guildId, g.member)).error).toBe(40007);
  });

  it('when a ban is put twice, then the first reason stays and one event is written', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.BAN_MEMBERS);
    await w.members.putBan(g.moderator, g.guildId, g.member, 'first');
    await w.members.putBan(g.moderator, g.guildId, g.member, 'second');
    expect((await w.members.ban(g.moderator, g.guildId, g.member)).reason).toBe('first');
    expect(w.store.named('GUILD_BAN_ADD')).toHaveLength(1);
  });

  it('when a user who is not a member is banned, then the ban is kept and nobody is removed', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.BAN_MEMBERS);
    const outsider = w.user();
    await w.members.putBan(g.moderator, g.guildId, outsider, null);
    expect(w.store.named('GUILD_MEMBER_REMOVE')).toEqual([]);
    expect((await w.members.bans(g.moderator, g.guildId, { limit: 10 })).map((b) => b.user.id)).toEqual([outsider]);
  });

  it('when the target is the owner, themself, higher, or unknown to auth, then 50013, 50013, 50013, 10013', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.BAN_MEMBERS);
    expect(await code(w.members.putBan(g.moderator, g.guildId, g.owner, null))).toBe(50013);
    expect(await code(w.members.putBan(g.moderator, g.guildId, g.moderator, null))).toBe(50013);
    await w.members.addRole(g.owner, g.guildId, g.member, g.mod);
    expect(await code(w.members.putBan(g.moderator, g.guildId, g.member, null))).toBe(50013);
    expect(await code(w.members.putBan(g.moderator, g.guildId, '31337', null))).toBe(10013);
    expect(await code(w.members.putBan(g.other, g.guildId, g.member, null))).toBe(50013);
    expect(await w.store.members.ban(g.guildId, g.owner)).toBeUndefined();
  });

  it('when bans are listed, then in user id order, paged by before and after; BAN_MEMBERS is needed', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.BAN_MEMBERS);
    const banned = [w.user(), w.user(), w.user()];
    for (const id of banned) await w.members.putBan(g.moderator, g.guildId, id, null);
    const ids = async (page: { before?: string; after?: string; limit: number }) =>
      (await w.members.bans(g.moderator, g.guildId, page)).map((b) => b.user.id);
    expect(await ids({ limit: 10 })).toEqual(banned);
    expect(await ids({ after: banned[0], limit: 1 })).toEqual([banned[1]]);
    expect(await ids({ before: banned[2], limit: 10 })).toEqual(banned.slice(0, 2));
    expect(await code(w.members.bans(g.member, g.guildId, { limit: 10 }))).toBe(50013);
  });

  it('when a ban is lifted, then GUILD_BAN_REMOVE is written and the user may join again; lifting it again, 10026', async () => {
    const w = world();
    const g = await guildWithModerator(w, Permission.BAN_MEMBERS);
    await w.members.putBan(g.moderator, g.guildId, g.member, null);
    await w.members.deleteBan(g.moderator, g.guildId, g.member);
    expect(w.store.named('GUILD_BAN_REMOVE')).toHaveLength(1);
    expect(await code(w.members.deleteBan(g.moderator, g.guildId, g.member))).toBe(10026);
    expect(await code(w.members.ban(g.moderator, g.guildId, g.member))).toBe(10026);
    expect((await w.membership.join(g.guildId, g.member)).error).toBe(0);
  });
});
