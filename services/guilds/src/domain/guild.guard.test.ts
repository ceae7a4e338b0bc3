import { describe, expect, it } from 'vitest';
import type { RoleRecord as RoleRow } from './records.js';
import { highestPosition, requireAbove, requireGrantable, requireOutranks, requirePermission, type Actor } from './guild.guard.js';
import { ALL_PERMISSIONS, Permission } from './permissions.js';

const GUILD = '100';
const OWNER = '1';

const role = (id: string, position: number, permissions = 0n): RoleRow => ({
  id,
  guild_id: GUILD,
  name: id,
  color: 0,
  hoist: false,
  icon: null,
  unicode_emoji: null,
  position,
  permissions: permissions.toString(),
  managed: false,
  mentionable: false,
  flags: 0,
});

const roles = [role(GUILD, 0), role('low', 1), role('mid', 2, Permission.MANAGE_ROLES), role('top', 3)];

function actor(userId: string, roleIds: string[], permissions: bigint): Actor {
  return {
    guildId: GUILD,
    userId,
    ownerId: OWNER,
    isOwner: userId === OWNER,
    ctx: { guildId: GUILD, ownerId: OWNER, roles: new Map(), userId, memberRoleIds: roleIds },
    permissions,
    roles,
    highest: highestPosition(roleIds, roles),
  };
}

const code = (fn: () => void): number | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { body?: { code: number } }).body?.code;
  }
};

describe('role hierarchy', () => {
  it('when a member holds roles, then their rank is the highest position among them (@everyone is 0)', () => {
    expect(highestPosition(['low', 'mid'], roles)).toBe(2);
    expect(highestPosition([], roles)).toBe(0);
    expect(highestPosition(['gone'], roles)).toBe(0);
  });

  it('when a mod acts on roles, then only roles strictly below their highest are within reach', () => {
    const mod = actor('2', ['mid'], Permission.MANAGE_ROLES);
    expect(code(() => requireAbove(mod, 1))).toBeUndefined();
    expect(code(() => requireAbove(mod, 2))).toBe(50013);
    expect(code(() => requireAbove(mod, 3))).toBe(50013);
  });

  it('when an administrator acts, then permissions are bypassed but rank is not', () => {
    const admin = actor('3', ['low'], ALL_PERMISSIONS);
    expect(code(() => requirePermission(admin, Permission.BAN_MEMBERS))).toBeUndefined();
    expect(code(() => requireGrantable(admin, Permission.ADMINISTRATOR))).toBeUndefined();
    expect(code(() => requireAbove(admin, 1))).toBe(50013);
  });

  it('when the owner acts, then nothing is out of reach except being acted on themself', () => {
    const owner = actor(OWNER, [], ALL_PERMISSIONS);
    expect(code(() => requireAbove(owner, 3))).toBeUndefined();
    expect(code(() => requireOutranks(owner, '9', ['top']))).toBeUndefined();
    const mod = actor('2', ['top'], ALL_PERMISSIONS);
    expect(code(() => requireOutranks(mod, OWNER, []))).toBe(50013);
  });

  it('when a member acts on another, then the target must rank strictly lower', () => {
    const mod = actor('2', ['mid'], Permission.KICK_MEMBERS);
    expect(code(() => requireOutranks(mod, '9', ['low']))).toBeUndefined();
    expect(code(() => requireOutranks(mod, '9', []))).toBeUndefined();
    expect(code(() => requireOutranks(mod, '9', ['mid']))).toBe(50013);
    expect(code(() => requireOutranks(mod, '2', ['mid']))).toBe(50013);
  });

  it('when a member grants permissions, then only those they hold themselves pass', () => {
    const mod = actor('2', ['mid'], Permission.MANAGE_ROLES | Permission.KICK_MEMBERS);
    expect(code(() => requireGrantable(mod, Permission.KICK_MEMBERS))).toBeUndefined();
    expect(code(() => requireGrantable(mod, Permission.KICK_MEMBERS | Permission.BAN_MEMBERS))).toBe(50013);
    expect(code(() => requirePermission(mod, Permission.BAN_MEMBERS))).toBe(50013);
  });
});
