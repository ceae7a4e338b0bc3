import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareIds } from '../../src/domain/channel.audience.js';
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
  testIds,
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

/** A guild where `mod` holds a MANAGE_ROLES role below a `top` role. */
async function guildWithMod(modPermissions: bigint = Permission.MANAGE_ROLES | Permission.KICK_MEMBERS) {
  const guild = await createGuild(stack, owner);
  await join(stack, guild.id, mod);
  await join(stack, guild.id, member);
  const top = (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'top' })).body;
  // Created later, so lower: every new role starts at position 1.
  const modRole = await grantRole(stack, owner, guild.id, mod, modPermissions, 'mod');
  return { guild, top, modRole };
}

const roleOf = async (guildId: string, roleId: string): Promise<Body> =>
  (await api(stack, owner, 'GET', `/guilds/${guildId}/roles/${roleId}`)).body;

describe('creating roles', () => {
  it('when a role is created, then it sits just above @everyone, the others move up, and GUILD_ROLE_CREATE goes out', async () => {
    const guild = await createGuild(stack, owner);
    const first = await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'first', color: 0xff0000, hoist: true });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ name: 'first', color: 0xff0000, hoist: true, position: 1, managed: false, mentionable: false });
    // Without permissions the role gets what @everyone has.
    expect(first.body.permissions).toBe(guild.roles[0].permissions);
    const second = await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'second', permissions: '0' });
    expect(second.body.position).toBe(1);
    expect((await roleOf(guild.id, first.body.id)).position).toBe(2);

    const list = await api(stack, owner, 'GET', `/guilds/${guild.id}/roles`);
    expect(list.body.map((r: Body) => r.name)).toEqual(['@everyone', 'second', 'first']);
    const [created] = await outboxEvents(stack, 'GUILD_ROLE_CREATE', (e) => e.data.role.id === first.body.id);
    expect(created!.audience).toEqual({ guilds: [guild.id] });
    expect(created!.data.guild_id).toBe(guild.id);
  });

  it('when a role is created without MANAGE_ROLES, membership or a valid body, then 50013, 50001 or 50035 answers', async () => {
    const guild = await createGuild(stack, owner);
    await join(stack, guild.id, member);
    expect((await api(stack, outsider, 'POST', `/guilds/${guild.id}/roles`, { name: 'x' })).body.code).toBe(50001);
    expect((await api(stack, outsider, 'GET', `/guilds/${guild.id}/roles`)).body.code).toBe(50001);
    const denied = await api(stack, member, 'POST', `/guilds/${guild.id}/roles`, { name: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe(50013);
    const bits = await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { permissions: 'lots' });
    expect(bits.body.errors.permissions._errors[0].code).toBe('NUMBER_TYPE_COERCE');
    const color = await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { color: -1 });
    expect(color.body.errors.color._errors[0].code).toBe('NUMBER_TYPE_MIN');
    const hoist = await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { hoist: 'yes' });
    expect(hoist.body.errors.hoist._errors[0].code).toBe('BASE_TYPE_BAD_BOOLEAN');
  });

  it('when a role would grant permissions its creator lacks, then 50013; when an administrator creates it, then it is allowed', async () => {
    const { guild } = await guildWithMod();
    const ban = await api(stack, mod, 'POST', `/guilds/${guild.id}/roles`, { name: 'x', permissions: Permission.BAN_MEMBERS.toString() });
    expect(ban.body.code).toBe(50013);
    const admin = await api(stack, mod, 'POST', `/guilds/${guild.id}/roles`, {
      name: 'x',
      permissions: Permission.ADMINISTRATOR.toString(),
    });
    expect(admin.body.code).toBe(50013);
    const own = await api(stack, mod, 'POST', `/guilds/${guild.id}/roles`, { name: 'x', permissions: Permission.KICK_MEMBERS.toString() });
    expect(own.status).toBe(200);

    const admins = await newUser(stack);
    await join(stack, guild.id, admins);
    await grantRole(stack, owner, guild.id, admins, Permission.ADMINISTRATOR, 'admin');
    const anything = await api(stack, admins, 'POST', `/guilds/${guild.id}/roles`, {
      name: 'y',
      permissions: Permission.BAN_MEMBERS.toString(),
    });
    expect(anything.status).toBe(200);
  });

  it('when a guild has 250 roles, then another answers 30005, and concurrent creates never pass the cap', async () => {
    const guild = await createGuild(stack, owner);
    // 247 roles besides @everyone, written directly: the cap is under test, not 247 requests.
    await stack.db
      .insertInto('roles')
      .values(
        Array.from({ length: 247 }, (_, i) => ({
          id: testIds.next(),
          guild_id: guild.id,
          name: `r${i}`,
          position: i + 1,
          permissions: '0',
        })),
      )
      .execute();
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: `race ${i}` })),
    );
    expect(racing.filter((r) => r.status === 200)).toHaveLength(2);
    expect(racing.filter((r) => r.status === 400).every((r) => r.body.code === 30005)).toBe(true);
    const full = await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'one too many' });
    expect(full.status).toBe(400);
    expect(full.body).toMatchObject({ code: 30005, message: 'Maximum number of guild roles reached (250)' });
    expect((await api(stack, owner, 'GET', `/guilds/${guild.id}/roles`)).body).toHaveLength(250);
  });
});

describe('editing, reordering and deleting roles', () => {
  it('when an administrator edits or deletes a role at or above their highest, then 50013; below it, then it works', async () => {
    const { guild, top, modRole } = await guildWithMod(Permission.MANAGE_ROLES | Permission.ADMINISTRATOR);
    expect((await api(stack, mod, 'PATCH', `/guilds/${guild.id}/roles/${top.id}`, { name: 'mine' })).body.code).toBe(50013);
    expect((await api(stack, mod, 'PATCH', `/guilds/${guild.id}/roles/${modRole.id}`, { name: 'mine' })).body.code).toBe(50013);
    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/roles/${top.id}`)).body.code).toBe(50013);
    expect((await api(stack, mod, 'PATCH', `/guilds/${guild.id}/roles`, [{ id: top.id, position: 1 }])).body.code).toBe(50013);

    const below = (await api(stack, mod, 'POST', `/guilds/${guild.id}/roles`, { name: 'below' })).body;
    const edited = await api(stack, mod, 'PATCH', `/guilds/${guild.id}/roles/${below.id}`, { name: 'renamed', mentionable: true });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: below.id, name: 'renamed', mentionable: true });
    const [update] = await outboxEvents(stack, 'GUILD_ROLE_UPDATE', (e) => e.data.role.id === below.id && e.data.role.name === 'renamed');
    expect(update!.audience).toEqual({ guilds: [guild.id] });

    expect((await api(stack, mod, 'DELETE', `/guilds/${guild.id}/roles/${below.id}`)).status).toBe(204);
    const [deleted] = await outboxEvents(stack, 'GUILD_ROLE_DELETE', (e) => e.data.role_id === below.id);
    expect(deleted!.data).toEqual({ guild_id: guild.id, role_id: below.id });
    expect((await api(stack, owner, 'GET', `/guilds/${guild.id}/roles/${below.id}`)).body.code).toBe(10011);
  });

  it('when an edit would grant a role permissions the editor lacks, then 50013', async () => {
    const { guild } = await guildWithMod();
    const below = (await api(stack, mod, 'POST', `/guilds/${guild.id}/roles`, { name: 'below', permissions: '0' })).body;
    const ban = await api(stack, mod, 'PATCH', `/guilds/${guild.id}/roles/${below.id}`, { permissions: Permission.BAN_MEMBERS.toString() });
    expect(ban.body.code).toBe(50013);
    const kick = await api(stack, mod, 'PATCH', `/guilds/${guild.id}/roles/${below.id}`, {
      permissions: Permission.KICK_MEMBERS.toString(),
    });
    expect(kick.body.permissions).toBe(Permission.KICK_MEMBERS.toString());
  });

  it('when @everyone is deleted or an unknown role is touched, then 50035 or 10011 answers', async () => {
    const guild = await createGuild(stack, owner);
    const everyone = await api(stack, owner, 'DELETE', `/guilds/${guild.id}/roles/${guild.id}`);
    expect(everyone.status).toBe(400);
    expect(everyone.body.code).toBe(50035);
    expect((await api(stack, owner, 'DELETE', `/guilds/${guild.id}/roles/1234`)).body.code).toBe(10011);
    expect((await api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles/1234`, { name: 'x' })).body.code).toBe(10011);
    const edited = await api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles/${guild.id}`, { permissions: '0' });
    expect(edited.body).toMatchObject({ id: guild.id, permissions: '0', position: 0 });
  });

  it("when a role is deleted, then its channel overwrites go with it and each channel's viewers hear CHANNEL_UPDATE", async () => {
    const guild = await createGuild(stack, owner);
    await join(stack, guild.id, member);
    const role = await grantRole(stack, owner, guild.id, member, 0n, 'viewers');
    const view = Permission.VIEW_CHANNEL.toString();
    const secret = await api(stack, owner, 'POST', `/guilds/${guild.id}/channels`, {
      name: 'secret',
      permission_overwrites: [
        { id: guild.id, type: 0, deny: view },
        { id: role.id, type: 0, allow: view },
      ],
    });
    expect(secret.status).toBe(201);
    // A channel without the role's overwrite is not touched.
    expect((await api(stack, owner, 'POST', `/guilds/${guild.id}/channels`, { name: 'open' })).status).toBe(201);

    expect((await api(stack, owner, 'DELETE', `/guilds/${guild.id}/roles/${role.id}`)).status).toBe(204);

    const overwrites = await stack.db.selectFrom('permission_overwrites').select('channel_id').where('target_id', '=', role.id).execute();
    expect(overwrites).toEqual([]);
    const after = (await api(stack, owner, 'GET', `/channels/${secret.body.id}`)).body;
    expect(after.permission_overwrites).toEqual([{ id: guild.id, type: 0, allow: '0', deny: view }]);
    const updates = await outboxEvents(stack, 'CHANNEL_UPDATE', (e) => e.data.guild_id === guild.id);
    expect(updates.map((e) => e.data.id)).toEqual([secret.body.id]);
    expect(updates[0]!.data.permission_overwrites).toEqual(after.permission_overwrites);
    // The member saw the channel through the role and lost sight of it: they hear the change too.
    expect(updates[0]!.audience).toEqual({ users: [owner.userId, member.userId].sort(compareIds) });
    expect((await api(stack, member, 'GET', `/channels/${secret.body.id}`)).status).toBe(403);
  });

  it('when roles are reordered, then every role comes back in its new order', async () => {
    const guild = await createGuild(stack, owner);
    const a = (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'a' })).body;
    const b = (await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name: 'b' })).body;
    const res = await api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles`, [
      { id: a.id, position: 1 },
      { id: b.id, position: 2 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.map((r: Body) => r.name)).toEqual(['@everyone', 'a', 'b']);
    const bad = await api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles`, { id: a.id });
    expect(bad.body.code).toBe(50035);
    expect((await api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles`, [{ id: '1234', position: 1 }])).body.code).toBe(10011);
  });

  it('when a reorder moves several roles, then each moved role gets one GUILD_ROLE_UPDATE with its new position, a role named twice moves once to its last place, and an unmoved one is silent', async () => {
    const guild = await createGuild(stack, owner);
    const names = ['a', 'b', 'c'];
    const roles: Body[] = [];
    for (const name of names) roles.push((await api(stack, owner, 'POST', `/guilds/${guild.id}/roles`, { name })).body);
    const [a, b, c] = roles.map((r) => r.id as string) as [string, string, string];
    const ofGuild = (e: { data: Body }) => e.data.guild_id === guild.id;
    const before = (await outboxEvents(stack, 'GUILD_ROLE_UPDATE', ofGuild)).length; // creations shift roles up
    // Each new role starts at 1 and pushes the others up: c 1, b 2, a 3.
    const res = await api(stack, owner, 'PATCH', `/guilds/${guild.id}/roles`, [
      { id: a, position: 2 },
      { id: b, position: 9 },
      { id: a, position: 1 },
      { id: b, position: 3 },
      { id: c, position: 1 },
    ]);
    expect(res.status).toBe(200);
    const byId = new Map(res.body.map((r: Body) => [r.id, r.position]));
    expect([byId.get(a), byId.get(b), byId.get(c)]).toEqual([1, 3, 1]);
    const updates = (await outboxEvents(stack, 'GUILD_ROLE_UPDATE', ofGuild)).slice(before);
    // c was already at 1: no event for it; a and b once each, in the order of their last move.
    expect(updates.map((e) => [e.data.role.id, e.data.role.position])).toEqual([
      [a, 1],
      [b, 3],
    ]);
  });
});
