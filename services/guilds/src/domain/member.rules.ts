import { ApiError } from '@kith/platform';
import { requireOutranks, requirePermission, type Actor } from './guild.guard.js';
import { Permission } from './permissions.js';
import type { MemberColumns, MemberRecord } from './records.js';

export interface MemberChanges {
  nick?: string | null;
  roles?: string[];
  mute?: boolean;
  deaf?: boolean;
  communication_disabled_until?: string | null;
}

/** Fields of a member a moderator changes, and the permission each needs. */
const MODERATION: readonly ['mute' | 'deaf' | 'communication_disabled_until', bigint][] = [
  ['mute', Permission.MUTE_MEMBERS],
  ['deaf', Permission.DEAFEN_MEMBERS],
  ['communication_disabled_until', Permission.MODERATE_MEMBERS],
];

/**
 * What a PATCH may write to a member's row, or the error saying why not. A nickname needs
 * MANAGE_NICKNAMES (your own: CHANGE_NICKNAME will do); mute/deaf MUTE_/DEAFEN_MEMBERS; a timeout
 * MODERATE_MEMBERS, never on yourself. Acting on someone else needs rank over them. Roles are not
 * columns: the service sets them with their own checks.
 */
export function memberColumns(actor: Actor, member: MemberRecord, changes: MemberChanges): MemberColumns {
  const self = member.user_id === actor.userId;
  const columns: MemberColumns = {};
  if (changes.nick !== undefined) {
    if (self) {
      if (!(actor.permissions & (Permission.CHANGE_NICKNAME | Permission.MANAGE_NICKNAMES))) throw ApiError.of('MISSING_PERMISSIONS');
    } else {
      requirePermission(actor, Permission.MANAGE_NICKNAMES);
      requireOutranks(actor, member.user_id, member.role_ids);
    }
    columns.nick = changes.nick === '' ? null : changes.nick;
  }
  for (const [field, permission] of MODERATION) {
    const value = changes[field];
    if (value === undefined) continue;
    requirePermission(actor, permission);
    if (!self || field === 'communication_disabled_until') requireOutranks(actor, member.user_id, member.role_ids);
    Object.assign(columns, { [field]: value });
  }
  return columns;
}
