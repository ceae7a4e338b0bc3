import { describe, expect, it } from 'vitest';
import { code, fieldErrors, world, type World } from '../../test/fakes/world.js';
import { Permission } from './permissions.js';
import { MAX_ROLES } from './roles.service.js';

/** An owner and a manager holding `manager` (MANAGE_ROLES plus `extra`), the only role besides @everyone. */
async function managed(w: World, extra = 0n) {
  const owner = w.user('owner');
  const manager = w.user('manager');
  const guildId = await w.guild(owner);
  await w.join(guildId, manager);
  const role = await w.roles.create(owner, guildId, { name: 'manager', permissions: Permission.MANAGE_ROLES | extra });
  await w.members.addRole(owner, guildId, manager, role.id as string);
  return { owner, manager, guildId, managerRole: role.id as string };
}

const positions = async (w: World, guildId: string) => (await w.store.roles.list(guildId)).map((r) => [r.name, r.position]);

describe('RolesService.create', () => {
  it('when a role is made, then it sits at position 1, the others move up, and each move is announced', async () => {
    const w = world();
    const { owner, guildId } = await managed(w);
    const role = await w.roles.create(owner, guildId, { name: 'new', color: 0xff0000, hoist: true });
    expect(role).toMatchObject({ name: 'new', position: 1, color: 0xff0000, hoist: true, colors: { primary_color: 0xff0000 } });
    expect(await positions(w, guildId)).toEqual([
      ['@everyone', 0],
      ['new', 1],
      ['manager', 2],
    ]);
    const events = w.store.events.filter((e) => e.name.startsWith('GUILD_ROLE')).slice(-2);
    expect(events.map((e) => [e.name, (e.data as { role: { name: string; position: number } }).role.position])).toEqual([
      ['GUILD_ROLE_CREATE', 1],
      ['GUILD_ROLE_UPDATE', 2],
    ]);
  });

  it('when no permissions are given, then the role gets what @everyone has; no name, "new role"', async () => {
    const w = world();
    const { owner, guildId } = await managed(w);
    const everyone = (await w.store.roles.get(guildId, guildId))!;
    expect(await w.roles.create(owner, guildId, {})).toMatchObject({ name: 'new role', permissions: everyone.permissions });
  });

  it('when a manager grants a permission they lack, then 50013; the owner may grant anything', async () => {
    const w = world();
    const { owner, manager, guildId } = await managed(w);
    expect(await code(w.roles.create(manager, guildId, { permissions: Permission.BAN_MEMBERS }))).toBe(50013);
    expect(await code(w.roles.create(manager, guildId, { permissions: Permission.MANAGE_ROLES }))).toBe('ok');
    expect(await code(w.roles.create(owner, guildId, { permissions: Permission.ADMINISTRATOR }))).toBe('ok');
  });

  it(`when the guild has ${MAX_ROLES} roles, then 30005`, async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    for (let i = 1; i < 250; i++) await w.roles.create(owner, guildId, { name: `r${i}` });
    expect(await w.store.roles.list(guildId)).toHaveLength(250);
    expect(await code(w.roles.create(owner, guildId, { name: 'too many' }))).toBe(30005);
  });

  it('when a member without MANAGE_ROLES, or outside the guild, makes a role, then 50013 and 50001', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, member);
    expect(await code(w.roles.create(member, guildId, {}))).toBe(50013);
    expect(await code(w.roles.create(w.user(), guildId, {}))).toBe(50001);
    expect(await w.store.roles.list(guildId)).toHaveLength(1);
  });
});

describe('RolesService.update', () => {
  it('when a role below the manager is edited, then it changes and GUILD_ROLE_UPDATE is written', async () => {
    const w = world();
    const { owner, manager, guildId } = await managed(w);
    const low = await w.roles.create(owner, guildId, { name: 'low' });
    expect(await w.roles.update(manager, guildId, low.id as string, { name: 'lower', mentionable: true })).toMatchObject({
      name: 'lower',
      mentionable: true,
    });
    expect(w.store.named('GUILD_ROLE_UPDATE').at(-1)!.data).toMatchObject({ guild_id: guildId, role: { name: 'lower' } });
  });

  it('when the manager edits their own role or one above, then 50013; an unknown role, 10011', async () => {
    const w = world();
    const { manager, guildId, managerRole } = await managed(w);
    expect(await code(w.roles.update(manager, guildId, managerRole, { name: 'boss' }))).toBe(50013);
    expect(await code(w.roles.update(manager, guildId, '4242', { name: 'x' }))).toBe(10011);
  });

  it('when @everyone is edited, then any manager may, within what they hold; renaming it is a 50035', async () => {
    const w = world();
    const { manager, guildId } = await managed(w);
    expect(await code(w.roles.update(manager, guildId, guildId, { mentionable: true }))).toBe('ok');
    expect(await code(w.roles.update(manager, guildId, guildId, { permissions: Permission.BAN_MEMBERS }))).toBe(50013);
    expect(await fieldErrors(w.roles.update(manager, guildId, guildId, { name: 'everybody' }))).toHaveProperty('name');
  });

  it('when the permissions a manager sends back include ones the role had but they lack, then that is no grant', async () => {
    const w = world();
    const { owner, manager, guildId } = await managed(w);
    const low = await w.roles.create(owner, guildId, { permissions: Permission.BAN_MEMBERS });
    const kept = Permission.BAN_MEMBERS | Permission.MANAGE_ROLES;
    expect(await w.roles.update(manager, guildId, low.id as string, { permissions: kept })).toMatchObject({ permissions: kept.toString() });
  });
});

describe('RolesService.delete', () => {
  it('when a role is deleted, then its members lose it, the channel overwrites naming it go (each channel announced), and GUILD_ROLE_DELETE is written', async () => {
    const w = world();
    const { owner, manager, guildId } = await managed(w);
    const member = w.user();
    await w.join(guildId, member);
    const low = (await w.roles.create(owner, guildId, { name: 'low' })).id as string;
    await w.members.addRole(owner, guildId, member, low);
    const [general] = await w.store.channels.listInGuild(guildId);
    await w.channels.channels.putOverwrite(owner, general!.id, { id: low, type: 0, allow: Permission.ADD_REACTIONS, deny: 0n });
    const before = w.store.named('CHANNEL_UPDATE').length;
    await w.roles.delete(manager, guildId, low);
    expect(await w.store.roles.get(guildId, low)).toBeUndefined();
    expect((await w.store.members.get(guildId, member))!.role_ids).toEqual([]);
    expect(await w.store.channels.overwrites(general!.id)).toEqual([]);
    expect(w.store.named('CHANNEL_UPDATE')).toHaveLength(before + 1);
    expect(w.store.named('GUILD_ROLE_DELETE')).toEqual([expect.objectContaining({ data: { guild_id: guildId, role_id: low } })]);
  });

  it('when @everyone is deleted, then 50035; a role at or above the manager, 50013; an unknown one, 10011', async () => {
    const w = world();
    const { manager, guildId, managerRole } = await managed(w);
    expect(await fieldErrors(w.roles.delete(manager, guildId, guildId))).toHaveProperty('role_id');
    expect(await code(w.roles.delete(manager, guildId, managerRole))).toBe(50013);
    expect(await code(w.roles.delete(manager, guildId, '1'))).toBe(10011);
    expect(w.store.named('GUILD_ROLE_DELETE')).toEqual([]);
  });
});

describe('RolesService.reorder', () => {
  it('when roles are moved, then each moved one is announced once at its last asked place, and the list comes back in order', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const c = (await w.roles.create(owner, guildId, { name: 'c' })).id as string;
    const b = (await w.roles.create(owner, guildId, { name: 'b' })).id as string;
    const a = (await w.roles.create(owner, guildId, { name: 'a' })).id as string;
    const before = w.store.named('GUILD_ROLE_UPDATE').length;
    const list = await w.roles.reorder(owner, guildId, [
      { id: a, position: 2 },
      { id: c, position: 1 },
      { id: a, position: 3 },
      { id: b, position: 2 },
    ]);
    expect(list.map((r) => r.name)).toEqual(['@everyone', 'c', 'b', 'a']);
    const moved = w.store.named('GUILD_ROLE_UPDATE').slice(before);
    expect(moved.map((e) => (e.data as { role: { name: string } }).role.name).sort()).toEqual(['a', 'c']);
  });

  it('when @everyone is asked to move, then it stays at 0; a position of 0 asked for another role becomes 1', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const r = (await w.roles.create(owner, guildId, { name: 'r' })).id as string;
    await w.roles.create(owner, guildId, { name: 's' });
    await w.roles.reorder(owner, guildId, [
      { id: guildId, position: 5 },
      { id: r, position: 0 },
    ]);
    expect((await w.store.roles.get(guildId, guildId))!.position).toBe(0);
    expect((await w.store.roles.get(guildId, r))!.position).toBe(1);
  });

  it('when a manager moves a role above themself, or one from above them, then 50013 and nothing moves', async () => {
    const w = world();
    const { owner, manager, guildId, managerRole } = await managed(w);
    const low = (await w.roles.create(owner, guildId, { name: 'low' })).id as string;
    const before = await positions(w, guildId);
    expect(await code(w.roles.reorder(manager, guildId, [{ id: low, position: 5 }]))).toBe(50013);
    expect(await code(w.roles.reorder(manager, guildId, [{ id: managerRole, position: 1 }]))).toBe(50013);
    expect(await code(w.roles.reorder(manager, guildId, [{ id: '12', position: 1 }]))).toBe(10011);
    expect(await positions(w, guildId)).toEqual(before);
  });
});

describe('RolesService: reading', () => {
  it('when a member lists or gets roles, then they come in position order; an unknown role is 10011', async () => {
    const w = world();
    const owner = w.user();
    const guildId = await w.guild(owner);
    const r = (await w.roles.create(owner, guildId, { name: 'r' })).id as string;
    expect((await w.roles.list(owner, guildId)).map((x) => x.name)).toEqual(['@everyone', 'r']);
    expect(await w.roles.get(owner, guildId, r)).toMatchObject({ id: r, name: 'r' });
    expect(await code(w.roles.get(owner, guildId, '8'))).toBe(10011);
  });
});
