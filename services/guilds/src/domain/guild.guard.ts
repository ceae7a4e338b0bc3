import { ApiError } from '@kith/platform';
import { hasAll, Permission, type GuildPermissionContext } from './permissions.js';
import type { GuildsUnit } from './ports.js';
import type { RoleRecord } from './records.js';

/** A member acting in a guild: what permission and hierarchy checks need. */
export interface Actor {
  guildId: string;
  userId: string;
  ownerId: string;
  isOwner: boolean;
  ctx: GuildPermissionContext;
  permissions: bigint;
  roles: RoleRecord[];
  /** The position of the actor's highest role (0: only `@everyone`). */
  highest: number;
}

/** The highest position among these role ids (`@everyone` is 0). */
export function highestPosition(roleIds: readonly string[], roles: readonly RoleRecord[]): number {
  const ids = new Set(roleIds);
  return roles.reduce((top, r) => (ids.has(r.id) && r.position > top ? r.position : top), 0);
}

/**
 * The caller as a member of the guild: 10004 for a guild that does not exist, 50001 Missing
 * Access for one that exists but the caller is not in (the platform tells the two apart, and
 * clients branch on it).
 */
export async function actorIn(unit: Pick<GuildsUnit, 'access' | 'roles'>, guildId: string, userId: string): Promise<Actor> {
  const [guildAccess, roles] = await Promise.all([unit.access.guild(guildId, userId), unit.roles.list(guildId)]);
  if (!guildAccess) throw ApiError.of('UNKNOWN_GUILD');
  if (!guildAccess.ctx) throw ApiError.of('MISSING_ACCESS');
  const ctx = guildAccess.ctx;
  return {
    guildId,
    userId,
    ownerId: guildAccess.ownerId,
    isOwner: guildAccess.ownerId === userId,
    ctx,
    permissions: guildAccess.permissions,
    roles,
    highest: highestPosition(ctx.memberRoleIds, roles),
  };
}

export function requirePermission(actor: Actor, required: bigint): void {
  if (!hasAll(actor.permissions, required)) throw ApiError.of('MISSING_PERMISSIONS');
}

/**
 * Role hierarchy: only the owner acts on roles at or above their own highest role. ADMINISTRATOR
 * grants permissions, never rank.
 */
export function requireAbove(actor: Actor, position: number): void {
  if (!actor.isOwner && position >= actor.highest) throw ApiError.of('MISSING_PERMISSIONS');
}

/** Nobody but the owner grants permissions they lack (administrators have them all). */
export function requireGrantable(actor: Actor, permissions: bigint): void {
  if (actor.isOwner || actor.permissions & Permission.ADMINISTRATOR) return;
  if ((permissions & ~actor.permissions) !== 0n) throw ApiError.of('MISSING_PERMISSIONS');
}

/** Acting on another member (kick, ban, nickname, roles): their highest role must be below yours. */
export function requireOutranks(actor: Actor, targetId: string, targetRoleIds: readonly string[]): void {
  if (targetId === actor.ownerId) throw ApiError.of('MISSING_PERMISSIONS');
  if (actor.isOwner) return;
  if (highestPosition(targetRoleIds, actor.roles) >= actor.highest) throw ApiError.of('MISSING_PERMISSIONS');
}
