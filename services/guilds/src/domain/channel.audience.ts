import type { Audience } from '@kith/platform';
import type { GuildSnapshot } from './records.js';
import { channelPermissions, hasAll, OverwriteType, Permission, type GuildPermissionContext, type Overwrite } from './permissions.js';

/**
 * Who a guild channel's events go to. When every member sees the channel the audience is the
 * guild (realtime fans out); otherwise the ids of the members who see it, in one event.
 */

/** Every member sees the channel: `@everyone` has VIEW_CHANNEL after its overwrite, and no role or member overwrite denies it. */
export function everyoneSees(guildId: string, everyonePermissions: bigint, overwrites: readonly Overwrite[]): boolean {
  let permissions = everyonePermissions;
  const everyone = overwrites.find((o) => o.id === guildId);
  if (everyone) permissions = (permissions & ~everyone.deny) | everyone.allow;
  if (!(permissions & Permission.VIEW_CHANNEL)) return false;
  return !overwrites.some((o) => o.id !== guildId && o.deny & Permission.VIEW_CHANNEL);
}

/** The ids of the members who can view a channel with these overwrites (and have `required` there too). */
export function viewerIds(guild: GuildSnapshot, overwrites: readonly Overwrite[], required = Permission.VIEW_CHANNEL): string[] {
  const roles = new Map([...guild.roles].map(([id, permissions]) => [id, { id, permissions }]));
  return guild.members
    .filter((m) => {
      const ctx: GuildPermissionContext = {
        guildId: guild.guildId,
        ownerId: guild.ownerId,
        roles,
        userId: m.userId,
        memberRoleIds: m.roleIds,
      };
      return hasAll(channelPermissions(ctx, overwrites), required | Permission.VIEW_CHANNEL);
    })
    .map((m) => m.userId);
}

/**
 * Who sees a private thread: its creator and the moderators (MANAGE_THREADS), among those who see
 * its parent (`parentOverwrites`).
 */
export function privateThreadViewerIds(guild: GuildSnapshot, parentOverwrites: readonly Overwrite[], ownerId: string | null): string[] {
  const moderators = new Set(viewerIds(guild, parentOverwrites, Permission.MANAGE_THREADS));
  return viewerIds(guild, parentOverwrites)
    .filter((id) => id === ownerId || moderators.has(id))
    .sort(compareIds);
}

/**
 * The audience of a change: `states` are the channel's overwrites before and/or after it; a member
 * who could see the channel in any of them hears about the change (who loses sight of it too).
 */
export function channelAudience(guild: GuildSnapshot, states: readonly (readonly Overwrite[])[]): Audience {
  const everyonePermissions = guild.roles.get(guild.guildId) ?? 0n;
  if (states.every((overwrites) => everyoneSees(guild.guildId, everyonePermissions, overwrites))) return { guilds: [guild.guildId] };
  const ids = new Set<string>();
  for (const overwrites of states) for (const id of viewerIds(guild, overwrites)) ids.add(id);
  return { users: [...ids].sort(compareIds) };
}

export const compareIds = (a: string, b: string): number => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

export const isMemberOverwrite = (o: Overwrite): boolean => o.type === OverwriteType.MEMBER;
