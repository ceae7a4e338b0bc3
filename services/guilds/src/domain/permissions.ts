/**
 * The platform's permission bitfield and its documented algorithm (userdoccers
 * `pages/topics/permissions.mdx`): base permissions from `@everyone` and the member's roles
 * (owner and ADMINISTRATOR have everything), then the channel's overwrites in order —
 * `@everyone`, the member's roles (deny, then allow), the member — and without VIEW_CHANNEL a
 * member has nothing in that channel. Threads use their parent channel's overwrites.
 *
 * Pure functions over plain data: the stores load what a check needs, this decides.
 */

export const Permission = {
  CREATE_INSTANT_INVITE: 1n << 0n,
  KICK_MEMBERS: 1n << 1n,
  BAN_MEMBERS: 1n << 2n,
  ADMINISTRATOR: 1n << 3n,
  MANAGE_CHANNELS: 1n << 4n,
  MANAGE_GUILD: 1n << 5n,
  ADD_REACTIONS: 1n << 6n,
  VIEW_AUDIT_LOG: 1n << 7n,
  PRIORITY_SPEAKER: 1n << 8n,
  STREAM: 1n << 9n,
  VIEW_CHANNEL: 1n << 10n,
  SEND_MESSAGES: 1n << 11n,
  SEND_TTS_MESSAGES: 1n << 12n,
  MANAGE_MESSAGES: 1n << 13n,
  EMBED_LINKS: 1n << 14n,
  ATTACH_FILES: 1n << 15n,
  READ_MESSAGE_HISTORY: 1n << 16n,
  MENTION_EVERYONE: 1n << 17n,
  USE_EXTERNAL_EMOJIS: 1n << 18n,
  VIEW_GUILD_INSIGHTS: 1n << 19n,
  CONNECT: 1n << 20n,
  SPEAK: 1n << 21n,
  MUTE_MEMBERS: 1n << 22n,
  DEAFEN_MEMBERS: 1n << 23n,
  MOVE_MEMBERS: 1n << 24n,
  USE_VAD: 1n << 25n,
  CHANGE_NICKNAME: 1n << 26n,
  MANAGE_NICKNAMES: 1n << 27n,
  MANAGE_ROLES: 1n << 28n,
  MANAGE_WEBHOOKS: 1n << 29n,
  MANAGE_GUILD_EXPRESSIONS: 1n << 30n,
  USE_APPLICATION_COMMANDS: 1n << 31n,
  REQUEST_TO_SPEAK: 1n << 32n,
  MANAGE_EVENTS: 1n << 33n,
  MANAGE_THREADS: 1n << 34n,
  CREATE_PUBLIC_THREADS: 1n << 35n,
  CREATE_PRIVATE_THREADS: 1n << 36n,
  USE_EXTERNAL_STICKERS: 1n << 37n,
  SEND_MESSAGES_IN_THREADS: 1n << 38n,
  USE_EMBEDDED_ACTIVITIES: 1n << 39n,
  MODERATE_MEMBERS: 1n << 40n,
  VIEW_CREATOR_MONETIZATION_ANALYTICS: 1n << 41n,
  USE_SOUNDBOARD: 1n << 42n,
  CREATE_GUILD_EXPRESSIONS: 1n << 43n,
  CREATE_EVENTS: 1n << 44n,
  USE_EXTERNAL_SOUNDS: 1n << 45n,
  SEND_VOICE_MESSAGES: 1n << 46n,
  USE_CLYDE_AI: 1n << 47n,
  SET_VOICE_CHANNEL_STATUS: 1n << 48n,
  SEND_POLLS: 1n << 49n,
  USE_EXTERNAL_APPS: 1n << 50n,
} as const;

export type PermissionName = keyof typeof Permission;

/** Every defined bit: what the owner and administrators have. */
export const ALL_PERMISSIONS: bigint = Object.values(Permission).reduce((all, bit) => all | bit, 0n);

export const OverwriteType = { ROLE: 0, MEMBER: 1 } as const;

export interface RoleBits {
  id: string;
  permissions: bigint;
}

export interface Overwrite {
  id: string;
  type: number;
  allow: bigint;
  deny: bigint;
}

/** What a permission decision needs to know of a guild and one of its members. */
export interface GuildPermissionContext {
  guildId: string;
  ownerId: string;
  /** The guild's roles by id; the `@everyone` role's id is the guild's id. */
  roles: ReadonlyMap<string, RoleBits>;
  userId: string;
  /** The member's role ids (without `@everyone`). */
  memberRoleIds: readonly string[];
}

/** The member's guild-level permissions. */
export function basePermissions(ctx: GuildPermissionContext): bigint {
  if (ctx.userId === ctx.ownerId) return ALL_PERMISSIONS;
  let permissions = ctx.roles.get(ctx.guildId)?.permissions ?? 0n;
  for (const roleId of ctx.memberRoleIds) permissions |= ctx.roles.get(roleId)?.permissions ?? 0n;
  if (permissions & Permission.ADMINISTRATOR) return ALL_PERMISSIONS;
  return permissions;
}

/** The member's permissions in a channel with these overwrites (a thread: its parent's). */
export function channelPermissions(ctx: GuildPermissionContext, overwrites: readonly Overwrite[]): bigint {
  const base = basePermissions(ctx);
  if (base & Permission.ADMINISTRATOR || ctx.userId === ctx.ownerId) return ALL_PERMISSIONS;
  let permissions = base;
  const everyone = overwrites.find((o) => o.id === ctx.guildId);
  if (everyone) permissions = (permissions & ~everyone.deny) | everyone.allow;
  let allow = 0n;
  let deny = 0n;
  const memberRoles = new Set(ctx.memberRoleIds);
  for (const o of overwrites) {
    if (o.type === OverwriteType.ROLE && memberRoles.has(o.id)) {
      allow |= o.allow;
      deny |= o.deny;
    }
  }
  permissions = (permissions & ~deny) | allow;
  const member = overwrites.find((o) => o.type === OverwriteType.MEMBER && o.id === ctx.userId);
  if (member) permissions = (permissions & ~member.deny) | member.allow;
  if (!(permissions & Permission.VIEW_CHANNEL)) return 0n;
  return permissions;
}

export const hasAll = (permissions: bigint, required: bigint): boolean => (permissions & required) === required;

/** Bitfields travel as decimal strings; anything else is not a bitfield. */
export function parseBits(value: string): bigint | undefined {
  if (!/^\d{1,20}$/.test(value)) return undefined;
  const bits = BigInt(value);
  return bits < 1n << 64n ? bits : undefined;
}
