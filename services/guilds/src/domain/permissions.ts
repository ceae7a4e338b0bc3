/**
 * The platform's permission bitfield and its documented algorithm (userdoccers
 * `pages/topics/permissions.mdx`): base permissions from `@everyone` and the member's roles
 * (owner and ADMINISTRATOR have everything), then the channel's overwrites in order —
 * `@everyone` (deny, then allow), the member's roles (all denies, then all allows), the member
 * (deny, then allow) — then the rules the page states in prose: a timed-out or quarantined member
 * keeps only what the page lists, a thread takes its parent's overwrites but not SEND_MESSAGES,
 * and the implicit denials (no VIEW_CHANNEL → nothing in the channel; no SEND_MESSAGES → none of
 * what only comes with sending; no CONNECT in a voice channel → none of what needs being in it).
 *
 * Pure functions over plain data: the stores load what a check needs, this decides. A check runs
 * on every gRPC CheckPermissions call, so the hot path (`computeChannelPermissions`) does map
 * lookups over the member's own roles only, on overwrites indexed once per channel version.
 */

/** Every flag in the page's "Bitwise Permission Flags" table (API names; the page's in comments). */
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
  /** The page's MANAGE_EXPRESSIONS. */
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
  /** The page's CREATE_EXPRESSIONS. */
  CREATE_GUILD_EXPRESSIONS: 1n << 43n,
  CREATE_EVENTS: 1n << 44n,
  // The page's table prints 0x0000040000000000 for this row (a copy of USE_SOUNDBOARD's); its
  // `1 << 45` is the bit the platform uses.
  USE_EXTERNAL_SOUNDS: 1n << 45n,
  SEND_VOICE_MESSAGES: 1n << 46n,
  /** Struck out on the page: no longer granted, so not part of ALL_PERMISSIONS. */
  USE_CLYDE_AI: 1n << 47n,
  SET_VOICE_CHANNEL_STATUS: 1n << 48n,
  SEND_POLLS: 1n << 49n,
  USE_EXTERNAL_APPS: 1n << 50n,
  PIN_MESSAGES: 1n << 51n,
  BYPASS_SLOWMODE: 1n << 52n,
  MANAGE_OFFICIAL_MESSAGES: 1n << 53n,
} as const;

export type PermissionName = keyof typeof Permission;

/** Every current bit: what the owner and administrators have (the retired USE_CLYDE_AI is not one). */
export const ALL_PERMISSIONS: bigint = Object.values(Permission).reduce((all, bit) => all | bit, 0n) & ~Permission.USE_CLYDE_AI;

export const OverwriteType = { ROLE: 0, MEMBER: 1 } as const;

/** Channel types the implicit rules depend on (channel.mdx's channel types). */
const GUILD_TEXT = 0;
const GUILD_VOICE = 2;
const GUILD_ANNOUNCEMENT = 5;
const ANNOUNCEMENT_THREAD = 10;
const PUBLIC_THREAD = 11;
const PRIVATE_THREAD = 12;
const GUILD_STAGE_VOICE = 13;
const GUILD_FORUM = 15;
const GUILD_MEDIA = 16;

/** "Timed out members will temporarily lose all permissions except VIEW_CHANNEL and READ_MESSAGE_HISTORY." */
export const TIMED_OUT_PERMISSIONS = Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY;
/**
 * A member still behind the guild's member verification gate (`pending`): they may look, not take
 * part ("cannot send messages, react, connect to voice" until they complete the gate), so they keep
 * what a timed-out member keeps: VIEW_CHANNEL and READ_MESSAGE_HISTORY.
 */
export const PENDING_PERMISSIONS = Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY;
/** "This also applies to quarantined members, with the addition of the CHANGE_NICKNAME permission." */
export const QUARANTINED_PERMISSIONS = TIMED_OUT_PERMISSIONS | Permission.CHANGE_NICKNAME;

/** "Denying SEND_MESSAGES implicitly denies MENTION_EVERYONE, SEND_TTS_MESSAGES, ATTACH_FILES, and EMBED_LINKS." */
export const NEEDS_SEND_MESSAGES =
  Permission.MENTION_EVERYONE | Permission.SEND_TTS_MESSAGES | Permission.ATTACH_FILES | Permission.EMBED_LINKS;

/**
 * "For voice and stage channels, denying the CONNECT permission also implicitly denies other
 * permissions such as MANAGE_CHANNELS": the page's example, and what can only be done from inside
 * the channel. Moderating who is in it (mute, deafen, move) and its text chat stay.
 */
export const NEEDS_CONNECT =
  Permission.MANAGE_CHANNELS |
  Permission.PRIORITY_SPEAKER |
  Permission.STREAM |
  Permission.SPEAK |
  Permission.USE_VAD |
  Permission.REQUEST_TO_SPEAK |
  Permission.USE_EMBEDDED_ACTIVITIES |
  Permission.USE_SOUNDBOARD |
  Permission.USE_EXTERNAL_SOUNDS |
  Permission.SET_VOICE_CHANNEL_STATUS;

/** Guild member flags (guild.mdx) that mean "quarantined by AutoMod": name, bio (retired), guild tag. */
export const QUARANTINE_MEMBER_FLAGS = (1 << 7) | (1 << 8) | (1 << 10);

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
  /** Timed out now (`communication_disabled_until` in the future). */
  timedOut?: boolean;
  /** Quarantined now (one of QUARANTINE_MEMBER_FLAGS). */
  quarantined?: boolean;
  /** Not past the guild's member verification gate yet. */
  pending?: boolean;
}

/** A channel's overwrites indexed by target: built once per channel version, read by every check. */
export interface OverwriteIndex {
  everyone: Overwrite | undefined;
  byTarget: ReadonlyMap<string, Overwrite>;
}

export function indexOverwrites(overwrites: readonly Overwrite[], guildId: string): OverwriteIndex {
  const byTarget = new Map<string, Overwrite>();
  for (const o of overwrites) byTarget.set(o.id, o);
  return { everyone: byTarget.get(guildId), byTarget };
}

const EMPTY_OVERWRITES: OverwriteIndex = { everyone: undefined, byTarget: new Map() };

export const isQuarantined = (memberFlags: number): boolean => (memberFlags & QUARANTINE_MEMBER_FLAGS) !== 0;

/** Whether a member's timeout or quarantine applies now. */
export function memberRestrictions(
  communicationDisabledUntil: Date | null,
  flags: number,
  now: number = Date.now(),
): { timedOut: boolean; quarantined: boolean } {
  return {
    timedOut: communicationDisabledUntil !== null && communicationDisabledUntil.getTime() > now,
    quarantined: isQuarantined(flags),
  };
}

/** `@everyone`'s permissions OR every role of the member's (roles no longer in the guild add nothing). */
function rolePermissions(ctx: GuildPermissionContext): bigint {
  let permissions = ctx.roles.get(ctx.guildId)?.permissions ?? 0n;
  for (const roleId of ctx.memberRoleIds) permissions |= ctx.roles.get(roleId)?.permissions ?? 0n;
  return permissions;
}

/** Owners and administrators are exempt from timeouts, quarantine and the verification gate; everyone else keeps only this. */
function restrict(ctx: GuildPermissionContext, permissions: bigint): bigint {
  if (ctx.timedOut) return permissions & TIMED_OUT_PERMISSIONS;
  if (ctx.pending) return permissions & PENDING_PERMISSIONS;
  if (ctx.quarantined) return permissions & QUARANTINED_PERMISSIONS;
  return permissions;
}

/** The member's guild-level permissions. */
export function basePermissions(ctx: GuildPermissionContext): bigint {
  if (ctx.userId === ctx.ownerId) return ALL_PERMISSIONS;
  const permissions = rolePermissions(ctx);
  if (permissions & Permission.ADMINISTRATOR) return ALL_PERMISSIONS;
  return restrict(ctx, permissions);
}

/**
 * The member's permissions in a channel with these overwrites (a thread: its parent's). Without
 * `channelType` only the VIEW_CHANNEL rule applies (the type-specific implicit rules need it).
 */
export function channelPermissions(ctx: GuildPermissionContext, overwrites: readonly Overwrite[], channelType?: number): bigint {
  return computeChannelPermissions(ctx, overwrites.length ? indexOverwrites(overwrites, ctx.guildId) : EMPTY_OVERWRITES, channelType);
}

export function computeChannelPermissions(ctx: GuildPermissionContext, overwrites: OverwriteIndex, channelType?: number): bigint {
  if (ctx.userId === ctx.ownerId) return ALL_PERMISSIONS;
  let permissions = rolePermissions(ctx);
  // ADMINISTRATOR bypasses overwrites and every implicit rule.
  if (permissions & Permission.ADMINISTRATOR) return ALL_PERMISSIONS;

  const everyone = overwrites.everyone;
  if (everyone) permissions = (permissions & ~everyone.deny) | everyone.allow;
  // Role overwrites collide by union: a deny on one role loses to an allow on another, whatever their positions.
  let allow = 0n;
  let deny = 0n;
  for (const roleId of ctx.memberRoleIds) {
    const o = overwrites.byTarget.get(roleId);
    if (o !== undefined && o.type === OverwriteType.ROLE) {
      allow |= o.allow;
      deny |= o.deny;
    }
  }
  permissions = (permissions & ~deny) | allow;
  const member = overwrites.byTarget.get(ctx.userId);
  if (member !== undefined && member.type === OverwriteType.MEMBER) permissions = (permissions & ~member.deny) | member.allow;

  if (channelType !== undefined && isThreadType(channelType)) {
    // SEND_MESSAGES is not inherited: in a thread, sending is what SEND_MESSAGES_IN_THREADS grants.
    permissions &= ~Permission.SEND_MESSAGES;
    if (permissions & Permission.SEND_MESSAGES_IN_THREADS) permissions |= Permission.SEND_MESSAGES;
  }
  permissions = restrict(ctx, permissions);
  if (!(permissions & Permission.VIEW_CHANNEL)) return 0n;
  if (channelType === undefined) return permissions;
  if (hasMessages(channelType) && !(permissions & Permission.SEND_MESSAGES)) permissions &= ~NEEDS_SEND_MESSAGES;
  if ((channelType === GUILD_VOICE || channelType === GUILD_STAGE_VOICE) && !(permissions & Permission.CONNECT)) {
    permissions &= ~NEEDS_CONNECT;
  }
  return permissions;
}

const isThreadType = (type: number): boolean => type === ANNOUNCEMENT_THREAD || type === PUBLIC_THREAD || type === PRIVATE_THREAD;

/** Channels one sends messages in: text, announcement, forum and media (T), voice and stage chats, threads. */
const hasMessages = (type: number): boolean =>
  type === GUILD_TEXT ||
  type === GUILD_ANNOUNCEMENT ||
  type === GUILD_FORUM ||
  type === GUILD_MEDIA ||
  type === GUILD_VOICE ||
  type === GUILD_STAGE_VOICE ||
  isThreadType(type);

export const hasAll = (permissions: bigint, required: bigint): boolean => (permissions & required) === required;

/** Bitfields travel as decimal strings; anything else is not a bitfield. */
export function parseBits(value: string): bigint | undefined {
  if (!/^\d{1,20}$/.test(value)) return undefined;
  const bits = BigInt(value);
  return bits < 1n << 64n ? bits : undefined;
}
