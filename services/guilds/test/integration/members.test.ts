import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission } from '../../src/domain/permissions.js';
import {
  api,
  createGuild,
  grantRole,
  join,
  newUser,
  outboxEvents,
  startGuildsStack,
  stopGuildsStack,
  type Body,
  type GuildsStack,
  type GuildsUser,
} from './harness.js';

let stack: GuildsStack;
let owner: GuildsUser;
let mod: GuildsUser;
let member: GuildsUser;
let outsider: GuildsUser;

beforeAll(async () => {
  stack = await startGuildsStack();
  [owner, mod, member, outsider] = await Promise.all([newUser(stack), newUser(stack), newUser(stack), newUser(stack)]);
});
afterAll(() => stopGuildsStack(stack));

async function guildWith(modPermissions: bigint) {
  const guild = await createGuild(stack, owner);
  await join(stack, guild.id, mod);
  await join(stack, guild.id, member);
  const modRole = await grantRole(stack, owner, guild.id, mod, modPermissions, 'mod');
  return { guild, modRole };
}

describe('listing and reading members', () => {
  it('when members are listed, then they come in user id pages with the user embedded', async () => {
    const { guild } = await guildWith(0n);
    const ids = [owner.userId, mod.userId, member.userId].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const all = await api(stack, member, 'GET', `/guilds/${guild.id}/members?limit=1000`);
    expect(all.status).toBe(200);
    expect(all.body.map((m: Body) => m.user.id)).toEqual(ids);
    expect(all.body[0]).toMatchObject({ nick: null, deaf: false, mute: false, pending: false, joined_at: expect.any(String) });
    expect(all.body[0].user).toMatchObject({ username: expect.any(String), discriminator: expect.any(String) });
    const one = await api(stack, member, 'GET', `/guilds/${guild.id}/members`);
    expect(one.body).toHaveLength(1);
    const next = await api(stack, member, 'GET', `/guilds/${guild.id}/members?limit=2&after=${ids[0]}`);
    expect(next.body.map((m: Body) => m.user.id)).toEqual(ids.slice(1));
    const modEntry = all.body.find((m: Body) => m.user.id === mod.userId);
    expect(modEntry.roles).toHaveLength(1);
  });

  it('when outsiders, non-members or bad limits are asked about, then 50001, 10007 or 50035 answers', async () => {
    const { guild } = await guildWith(0n);
    expect((await api(stack, outsider, 'GET', `/guilds/${guild.id}/members`)).body.code).toBe(50001);
    expect((await api(stack, outsider, 'GET', `/guilds/${guild.id}/members/${owner.userId}`)).body.code).toBe(50001);
    const unknown = await api(stack, member, 'GET', `/guilds/${guild.id}/members/${outsider.userId}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(10007);
    expect((await api(stack, member, 'GET', `/guilds/${guild.id}/members?limit=0`)).body.code).toBe(50035);
    expect((await api(stack, member, 'GET', `/guilds/${guild.id}/members?limit=1001`)).body.code).toBe(50035);
  });
});

describe('editing members', () => {
  it('when nicknames change, then others need MANAGE_NICKNAMES and rank, yourself CHANGE_NICKNAME', async () => {
    const { guild } = await guildWith(Permission.MANAGE_NICKNAMES);
    expect((await api(stack, member, 'PATCH', `/guilds/${guild.id}/members/${mod.userId}`, { nick: 'x' })).body.code).toBe(50013);
    const named = await api(stack, mod, 'PATCH', `/guilds/${guild.id}/members/${member.userId}`, { nick: 'buddy' });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ nick: 'buddy', user: expect.objectContaining({ id: member.userId }) });
    const [update] = await outboxEvents(stack, 'GUILD_MEMBER_UPDATE', (e) => e.data.guild_id === guild.id && e.data.nick === 'buddy');
    expect(update!.audience).toEqual({ guilds: [guild.id] });
    // Never the owner, whatever the permissions.
    expect((await api(stack, mod, 'PATCH', `/guilds/${guild.id}/members/${owner.userId}`, { nick: 'x' })).body.code).toBe(50013);

    const mine = await api(stack, member, 'PATCH', `/guilds/${guild.id}/members/@me`, { nick: 'me' });
    expect(mine.body.nick).toBe('me');
    const cleared = await api(stack, member, 'PATCH', `/guilds/${guild.id}/members/@me`, { nick: null });
    expect(cleared.body.nick).toBeNull();
    const nul = await api(stack, member, 'PATCH', `/guilds/${guild.id}/members/@me`, { nick: 'a\u0000b' });
    expect(nul.body.errors.nick._errors[0].code).toBe('BASE_TYPE_INVALID');
    const long = await api(stack, member, 'PATCH', `/guilds/${guild.id}/members/@me`, { nick: 'x'.repeat(33) });
    expect(long.body.errors.nick._errors[0].code).toBe('BASE_TYPE_MAX_LENGTH');

    // Without CHANGE_NICKNAME on @everyone, members keep their names.
    await api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles/${guild.id}`, { permissions: Permission.VIEW_CHANNEL.toString() });
    expect((await api(stack, member, 'PATCH', `/guilds/${guild.id}/members/@me`, { nick: 'again' })).body.code).toBe(50013);
    expect((await api(stack, outsider, 'PATCH', `/guilds/${guild.id}/members/@me`, { nick: 'x' })).body.code).toBe(50001);
  });

  it('when roles are assigned, then MANAGE_ROLES and rank over each role are needed, and unknown roles are 10011', async () => {
    const guild = await createGuild(stack, owner);
    await join(stack, guild.id, mod);
    await join(stack, guild.id, member);
    const top = (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'top', permissions: '0' })).body;
    await grantRole(stack, owner, guild.id, mod, Permission.MANAGE_ROLES, 'mod');
    const low = (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'low', permissions: '0' })).body;

    expect((await api(stack, member, 'PUT', `/guilds/${guild.id}/members/${member.userId}/roles/${low.id}`)).body.code).toBe(50013);
    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/members/${member.userId}/roles/${top.id}`)).body.code).toBe(50013);
    expect((await api(stack, mod, 'PATCH', `/guilds/${guild.id}/members/${member.userId}`, { roles: [top.id] })).body.code).toBe(50013);
    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/members/${member.userId}/roles/1234`)).body.code).toBe(10011);
    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/members/${outsider.userId}/roles/${low.id}`)).body.code).toBe(10007);

    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/members/${member.userId}/roles/${low.id}`)).status).toBe(204);
    expect((await api(stack, mod, 'GET', `/guilds/${guild.id}/members/${member.userId}`)).body.roles).toEqual([low.id]);
    const [added] = await outboxEvents(stack, 'GUILD_MEMBER_UPDATE', (e) => e.data.guild_id === guild.id && e.data.roles.includes(low.id));
    expect(added!.data.user.id).toBe(member.userId);

    const patched = await api(stack, mod, 'PATCH', `/guilds/${guild.id}/members/${member.userId}`, { roles: [] });
    expect(patched.body.roles).toEqual([]);
    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/members/${member.userId}/roles/${low.id}`)).status).toBe(204);
    expect((await api(stack, member, 'DELETE', `/guilds/${guild.id}/members/${mod.userId}/roles/${low.id}`)).body.code).toBe(50013);
    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/members/${member.userId}/roles/1234`)).body.code).toBe(10011);
    expect((await api(stack, outsider, 'DELETE', `/guilds/${guild.id}/members/${member.userId}/roles/${low.id}`)).body.code).toBe(50001);
    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/members/abc/roles/${low.id}`)).body.code).toBe(50035);
    const bad = await api(stack, mod, 'PATCH', `/guilds/${guild.id}/members/${member.userId}`, { roles: 'all' });
    expect(bad.body.errors.roles._errors[0].code).toBe('LIST_TYPE_CONVERT');
  });
});

describe('kicking', () => {
  it('when a member is kicked, then KICK_MEMBERS and rank are needed, the owner never goes, and the guild and the user are told', async () => {
    const { guild } = await guildWith(Permission.KICK_MEMBERS);
    expect((await api(stack, member, 'DELETE', `/guilds/${guild.id}/members/${mod.userId}`)).body.code).toBe(50013);
    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/members/${owner.userId}`)).body.code).toBe(50013);
    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/members/${outsider.userId}`)).body.code).toBe(10007);
    // A peer at the same rank is out of reach.
    const peer = await newUser(stack);
    await join(stack, guild.id, peer);
    const modRoleId = (await api(stack, mod, 'GET', `/guilds/${guild.id}/members/${mod.userId}`)).body.roles[0];
    await api(stack, owner, 'PUT', `/guilds/${guild.id}/members/${peer.userId}/roles/${modRoleId}`);
    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/members/${peer.userId}`)).body.code).toBe(50013);

    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/members/${member.userId}`)).status).toBe(204);
    const [removed] = await outboxEvents(
      stack,
      'GUILD_MEMBER_REMOVE',
      (e) => e.data.guild_id === guild.id && e.data.user.id === member.userId,
    );
    expect(removed!.audience).toEqual({ guilds: [guild.id] });
    const [deleted] = await outboxEvents(stack, 'GUILD_DELETE', (e) => e.data.id === guild.id);
    expect(deleted!.audience).toEqual({ users: [member.userId] });
    expect((await api(stack, member, 'GET', `/guilds/${guild.id}`)).body.code).toBe(50001);
  });
});

describe('bans', () => {
  it('when a member is banned, then they are removed and cannot rejoin (40007) until unbanned', async () => {
    const { guild } = await guildWith(Permission.BAN_MEMBERS);
    expect((await api(stack, member, 'PUT', `/guilds/${guild.id}/bans/${mod.userId}`, {})).body.code).toBe(50013);
    expect((await api(stack, member, 'GET', `/guilds/${guild.id}/bans`)).body.code).toBe(50013);
    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/bans/${owner.userId}`, {})).body.code).toBe(50013);
    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/bans/${member.userId}`, { delete_message_seconds: -1 })).body.code).toBe(
      50035,
    );
    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/bans/99999`, {})).body.code).toBe(10013);

    const banned = await api(
      stack,
      mod,
      'PUT',
      `/guilds/${guild.id}/bans/${member.userId}`,
      {},
      { 'x-audit-log-reason': 'spam%20links%00' },
    );
    expect(banned.status).toBe(204);
    const [ban] = await outboxEvents(stack, 'GUILD_BAN_ADD', (e) => e.data.guild_id === guild.id);
    expect(ban!.data.user.id).toBe(member.userId);
    const [removed] = await outboxEvents(stack, 'GUILD_MEMBER_REMOVE', (e) => e.data.guild_id === guild.id);
    expect(removed!.data.user.id).toBe(member.userId);
    expect((await api(stack, member, 'GET', `/guilds/${guild.id}`)).body.code).toBe(50001);

    const one = await api(stack, mod, 'GET', `/guilds/${guild.id}/bans/${member.userId}`);
    expect(one.body).toMatchObject({ reason: 'spam links', user: expect.objectContaining({ id: member.userId }) });
    const list = await api(stack, mod, 'GET', `/guilds/${guild.id}/bans`);
    expect(list.body.map((b: Body) => b.user.id)).toEqual([member.userId]);

    const rejoin = await stack.grpc.addMember({ guildId: guild.id, userId: member.userId });
    expect(rejoin.errorCode).toBe(40007);

    // Banning someone who is not (or no longer) a member works too, and only once.
    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/bans/${outsider.userId}`)).status).toBe(204);
    expect((await api(stack, mod, 'PUT', `/guilds/${guild.id}/bans/${outsider.userId}`)).status).toBe(204);
    expect(await outboxEvents(stack, 'GUILD_BAN_ADD', (e) => e.data.guild_id === guild.id)).toHaveLength(2);

    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/bans/${member.userId}`)).status).toBe(204);
    const [unban] = await outboxEvents(stack, 'GUILD_BAN_REMOVE', (e) => e.data.guild_id === guild.id);
    expect(unban!.data.user.id).toBe(member.userId);
    expect((await api(stack, mod, 'GET', `/guilds/${guild.id}/bans/${member.userId}`)).body.code).toBe(10026);
    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/bans/${member.userId}`)).body.code).toBe(10026);
    expect((await stack.grpc.addMember({ guildId: guild.id, userId: member.userId })).errorCode).toBe(0);
  });
});
