/**
 * A second, deliberately naive statement of the permission algorithm, written straight from the
 * prose of userdoccers `pages/topics/permissions.mdx`, one bit at a time, with nothing shared with
 * `permissions.ts`. It exists only so the property test can hold the real implementation against
 * it; it is slow on purpose (arrays scanned, every bit decided separately) and never used to serve.
 */

/** Bit numbers, copied from the page's table (not imported: this statement stands alone). */
const BIT = {
  ADMINISTRATOR: 3,
  MANAGE_CHANNELS: 4,
  PRIORITY_SPEAKER: 8,
  STREAM: 9,
  VIEW_CHANNEL: 10,
  SEND_MESSAGES: 11,
  SEND_TTS_MESSAGES: 12,
  EMBED_LINKS: 14,
  ATTACH_FILES: 15,
  READ_MESSAGE_HISTORY: 16,
  MENTION_EVERYONE: 17,
  CONNECT: 20,
  SPEAK: 21,
  USE_VAD: 25,
  CHANGE_NICKNAME: 26,
  REQUEST_TO_SPEAK: 32,
  SEND_MESSAGES_IN_THREADS: 38,
  USE_EMBEDDED_ACTIVITIES: 39,
  USE_SOUNDBOARD: 42,
  USE_EXTERNAL_SOUNDS: 45,
  USE_CLYDE_AI: 47,
  SET_VOICE_CHANNEL_STATUS: 48,
};
/** The table runs from 1 << 0 to 1 << 53; 47 is struck out. */
const HIGHEST_DEFINED_BIT = 53;

export interface NaiveRole {
  id: string;
  permissions: bigint;
}

export interface NaiveOverwrite {
  /** 0 role, 1 member. */
  type: number;
  id: string;
  allow: bigint;
  deny: bigint;
}

export interface NaiveCase {
  guild: { id: string; ownerId: string; roles: NaiveRole[] };
  member: { userId: string; roleIds: string[]; timedOut: boolean; quarantined: boolean };
  /** Absent: guild-level permissions. */
  channel?: { type: number; overwrites: NaiveOverwrite[] };
}

const isSet = (value: bigint, bit: number): boolean => ((value >> BigInt(bit)) & 1n) === 1n;

function isOwner(c: NaiveCase): boolean {
  return c.member.userId === c.guild.ownerId;
}

/** "@everyone" is the role whose id is the guild's; then the member's own roles. */
function rolesOfMember(c: NaiveCase): NaiveRole[] {
  return c.guild.roles.filter((role) => role.id === c.guild.id || c.member.roleIds.includes(role.id));
}

function isAdministrator(c: NaiveCase): boolean {
  return rolesOfMember(c).some((role) => isSet(role.permissions, BIT.ADMINISTRATOR));
}

/** Steps 1 and 2: a bit is granted at guild level when @everyone or any of the member's roles grants it. */
function grantedByRoles(c: NaiveCase, bit: number): boolean {
  return rolesOfMember(c).some((role) => isSet(role.permissions, bit));
}

/** Steps 3 to 8, for one bit: each later step that says something about the bit wins. */
function afterOverwrites(c: NaiveCase, overwrites: NaiveOverwrite[], bit: number): boolean {
  let granted = grantedByRoles(c, bit);
  const everyone = overwrites.filter((o) => o.id === c.guild.id);
  if (everyone.some((o) => isSet(o.deny, bit))) granted = false; // 3
  if (everyone.some((o) => isSet(o.allow, bit))) granted = true; // 4
  const forMyRoles = overwrites.filter((o) => o.type === 0 && c.member.roleIds.includes(o.id));
  if (forMyRoles.some((o) => isSet(o.deny, bit))) granted = false; // 5
  if (forMyRoles.some((o) => isSet(o.allow, bit))) granted = true; // 6
  const forMe = overwrites.filter((o) => o.type === 1 && o.id === c.member.userId);
  if (forMe.some((o) => isSet(o.deny, bit))) granted = false; // 7
  if (forMe.some((o) => isSet(o.allow, bit))) granted = true; // 8
  return granted;
}

const toBits = (granted: boolean[]): bigint => granted.reduce((bits, on, bit) => (on ? bits | (1n << BigInt(bit)) : bits), 0n);

/** The member's permissions: in the guild, or in `c.channel`. */
export function naivePermissions(c: NaiveCase): bigint {
  // Owners and ADMINISTRATOR: every current permission, no overwrite, timeout or implicit rule applies.
  if (isOwner(c) || isAdministrator(c)) {
    const all: boolean[] = [];
    for (let bit = 0; bit <= HIGHEST_DEFINED_BIT; bit++) all[bit] = bit !== BIT.USE_CLYDE_AI;
    return toBits(all);
  }
  const granted: boolean[] = [];
  for (let bit = 0; bit < 64; bit++) granted[bit] = c.channel ? afterOverwrites(c, c.channel.overwrites, bit) : grantedByRoles(c, bit);

  const type = c.channel?.type;
  const thread = type === 10 || type === 11 || type === 12;
  // Threads: SEND_MESSAGES is not inherited; SEND_MESSAGES_IN_THREADS is what lets one send there.
  if (thread) granted[BIT.SEND_MESSAGES] = granted[BIT.SEND_MESSAGES_IN_THREADS] === true;

  // Timed out: everything but VIEW_CHANNEL and READ_MESSAGE_HISTORY is lost; quarantined: also keeps CHANGE_NICKNAME.
  if (c.member.timedOut || c.member.quarantined) {
    for (let bit = 0; bit < 64; bit++) {
      const kept = bit === BIT.VIEW_CHANNEL || bit === BIT.READ_MESSAGE_HISTORY || (!c.member.timedOut && bit === BIT.CHANGE_NICKNAME);
      if (!kept) granted[bit] = false;
    }
  }
  if (c.channel === undefined) return toBits(granted);

  // No VIEW_CHANNEL: nothing else in the channel counts.
  if (!granted[BIT.VIEW_CHANNEL]) return 0n;
  const sendsMessages = [0, 2, 5, 13, 15, 16].includes(c.channel.type) || thread;
  if (sendsMessages && !granted[BIT.SEND_MESSAGES]) {
    for (const bit of [BIT.MENTION_EVERYONE, BIT.SEND_TTS_MESSAGES, BIT.ATTACH_FILES, BIT.EMBED_LINKS]) granted[bit] = false;
  }
  const voice = c.channel.type === 2 || c.channel.type === 13;
  if (voice && !granted[BIT.CONNECT]) {
    const needConnect = [
      BIT.MANAGE_CHANNELS,
      BIT.PRIORITY_SPEAKER,
      BIT.STREAM,
      BIT.SPEAK,
      BIT.USE_VAD,
      BIT.REQUEST_TO_SPEAK,
      BIT.USE_EMBEDDED_ACTIVITIES,
      BIT.USE_SOUNDBOARD,
      BIT.USE_EXTERNAL_SOUNDS,
      BIT.SET_VOICE_CHANNEL_STATUS,
    ];
    for (const bit of needConnect) granted[bit] = false;
  }
  return toBits(granted);
}
