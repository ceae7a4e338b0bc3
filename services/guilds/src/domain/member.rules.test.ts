import { describe, expect, it } from 'vitest';
import type { MemberRecord as MemberRow } from './records.js';
import type { RoleRecord as RoleRow } from './records.js';
import { highestPosition, type Actor } from './guild.guard.js';
import { memberColumns } from './member.rules.js';
import { Permission } from './permissions.js';

const GUILD = '100';
const OWNER = '1';

const role = (id: string, position: number): RoleRow => ({
  id,
  guild_id: GUILD,
  name: id,
  color: 0,
  hoist: false,
  icon: null,
  unicode_emoji: null,
  position,
  permissions: '0',
  managed: false,
  mentionable: false,
  flags: 0,
});
const roles = [role(GUILD, 0), role('low', 1), role('high', 2)];

const actor = (userId: string, roleIds: string[], permissions: bigint): Actor => ({
  guildId: GUILD,
  userId,
  ownerId: OWNER,
  isOwner: userId === OWNER,
  ctx: { guildId: GUILD, ownerId: OWNER, roles: new Map(), userId, memberRoleIds: roleIds },
  permissions,
  roles,
  highest: highestPosition(roleIds, roles),
});

const member = (userId: string, roleIds: string[] = []): MemberRow => ({
  guild_id: GUILD,
  user_id: userId,
  nick: null,
  avatar: null,
  joined_at: new Date(0),
  premium_since: null,
  deaf: false,
  mute: false,
  pending: false,
  flags: 0,
  temporary: false,
  communication_disabled_until: null,
  role_ids: roleIds,
});

const codeOf = (fn: () => unknown): number | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { body?: { code: number } }).body?.code;
  }
};

describe('what a member edit may write', () => {
  it('when a member renames themself with CHANGE_NICKNAME, then the nick is written, and an empty one clears it', () => {
    const me = actor('2', [], Permission.CHANGE_NICKNAME);
    expect(memberColumns(me, member('2'), { nick: 'me' })).toEqual({ nick: 'me' });
    expect(memberColumns(me, member('2'), { nick: '' })).toEqual({ nick: null });
    expect(codeOf(() => memberColumns(actor('2', [], 0n), member('2'), { nick: 'me' }))).toBe(50013);
  });

  it('when someone else is renamed, then MANAGE_NICKNAMES and rank over them are needed', () => {
    const mod = actor('2', ['high'], Permission.MANAGE_NICKNAMES);
    expect(memberColumns(mod, member('3', ['low']), { nick: 'x' })).toEqual({ nick: 'x' });
    expect(codeOf(() => memberColumns(mod, member('3', ['high']), { nick: 'x' }))).toBe(50013);
    expect(codeOf(() => memberColumns(actor('2', ['high'], Permission.CHANGE_NICKNAME), member('3'), { nick: 'x' }))).toBe(50013);
  });

  it('when mute, deaf or a timeout change, then each needs its own permission, and a timeout never lands on yourself', () => {
    const mod = actor('2', ['high'], Permission.MUTE_MEMBERS | Permission.MODERATE_MEMBERS);
    expect(memberColumns(mod, member('3'), { mute: true, communication_disabled_until: '2030-01-01T00:00:00Z' })).toEqual({
      mute: true,
      communication_disabled_until: '2030-01-01T00:00:00Z',
    });
    expect(codeOf(() => memberColumns(mod, member('3'), { deaf: true }))).toBe(50013);
    expect(memberColumns(mod, member('2', ['high']), { mute: true })).toEqual({ mute: true });
    expect(codeOf(() => memberColumns(mod, member('2', ['high']), { communication_disabled_until: null }))).toBe(50013);
  });

  it('when only roles change, then no column is written', () => {
    expect(memberColumns(actor(OWNER, [], 0n), member('3'), { roles: ['low'] })).toEqual({});
  });
});
