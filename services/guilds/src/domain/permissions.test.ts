import { describe, expect, it } from 'vitest';
import {
  ALL_PERMISSIONS,
  basePermissions,
  channelPermissions,
  hasAll,
  memberRestrictions,
  OverwriteType,
  parseBits,
  Permission as P,
  type GuildPermissionContext,
  type Overwrite,
} from './permissions.js';

// Cases from userdoccers pages/topics/permissions.mdx; each says which passage it comes from.

const GUILD = '100';
const OWNER = '900';
const ME = '901';
const A = '201';
const B = '202';
const TEXT = 0;
const VOICE = 2;
const CATEGORY = 4;
const PUBLIC_THREAD = 11;

function ctx(
  over: Partial<GuildPermissionContext> & { everyone?: bigint; roleBits?: Record<string, bigint> } = {},
): GuildPermissionContext {
  const roles = new Map([[GUILD, { id: GUILD, permissions: over.everyone ?? P.VIEW_CHANNEL | P.SEND_MESSAGES }]]);
  for (const [id, permissions] of Object.entries(over.roleBits ?? {})) roles.set(id, { id, permissions });
  return { guildId: GUILD, ownerId: OWNER, userId: ME, memberRoleIds: [], roles, ...over };
}
const role = (id: string, allow: bigint, deny: bigint): Overwrite => ({ id, type: OverwriteType.ROLE, allow, deny });
const member = (id: string, allow: bigint, deny: bigint): Overwrite => ({ id, type: OverwriteType.MEMBER, allow, deny });

describe('the flag table ("Bitwise Permission Flags")', () => {
  it.each([
    ['CREATE_INSTANT_INVITE', 0x1n],
    ['ADMINISTRATOR', 0x8n],
    ['VIEW_CHANNEL', 0x400n],
    ['SEND_MESSAGES', 0x800n],
    ['MANAGE_GUILD_EXPRESSIONS', 0x40000000n],
    ['USE_APPLICATION_COMMANDS', 0x80000000n],
    ['SEND_MESSAGES_IN_THREADS', 0x4000000000n],
    ['MODERATE_MEMBERS', 0x10000000000n],
    ['CREATE_EVENTS', 0x100000000000n],
    ['USE_EXTERNAL_SOUNDS', 1n << 45n],
    ['SET_VOICE_CHANNEL_STATUS', 0x1000000000000n],
    ['USE_EXTERNAL_APPS', 0x4000000000000n],
    ['PIN_MESSAGES', 0x8000000000000n],
    ['BYPASS_SLOWMODE', 0x10000000000000n],
    ['MANAGE_OFFICIAL_MESSAGES', 0x20000000000000n],
  ] as const)('%s is %s', (name, value) => {
    expect(P[name]).toBe(value);
  });

  it('has one distinct bit per flag, 1 << 0 through 1 << 53', () => {
    const bits = Object.values(P);
    expect(new Set(bits).size).toBe(54);
    expect(bits.every((b) => (b & (b - 1n)) === 0n)).toBe(true);
  });

  it('ALL is every current flag; the struck-out USE_CLYDE_AI is not granted', () => {
    expect(ALL_PERMISSIONS).toBe(((1n << 54n) - 1n) & ~P.USE_CLYDE_AI);
  });

  it("checks flags with AND, as the page's Python example does (0x40 | 0x800 = 2112)", () => {
    const permissions = P.ADD_REACTIONS | P.SEND_MESSAGES;
    expect(permissions).toBe(2112n);
    expect(hasAll(permissions, P.ADD_REACTIONS)).toBe(true);
    expect(hasAll(permissions, P.SEND_MESSAGES)).toBe(true);
    expect(hasAll(permissions, P.KICK_MEMBERS)).toBe(false);
  });
});

describe('compute_base_permissions (the pseudocode)', () => {
  it.each([
    ['@everyone alone', ctx({ everyone: P.VIEW_CHANNEL }), P.VIEW_CHANNEL],
    [
      "@everyone OR each of the member's roles",
      ctx({ everyone: P.VIEW_CHANNEL, roleBits: { [A]: P.KICK_MEMBERS, [B]: P.BAN_MEMBERS }, memberRoleIds: [A, B] }),
      P.VIEW_CHANNEL | P.KICK_MEMBERS | P.BAN_MEMBERS,
    ],
    ['roles the member does not have add nothing', ctx({ everyone: 0n, roleBits: { [A]: P.KICK_MEMBERS } }), 0n],
    ['a role no longer in the guild adds nothing', ctx({ everyone: 0n, memberRoleIds: ['999'] }), 0n],
    ['"if guild.is_owner(member): return ALL"', ctx({ everyone: 0n, userId: OWNER }), ALL_PERMISSIONS],
    [
      '"if permissions & ADMINISTRATOR == ADMINISTRATOR: return ALL" (from a role)',
      ctx({ everyone: 0n, roleBits: { [A]: P.ADMINISTRATOR }, memberRoleIds: [A] }),
      ALL_PERMISSIONS,
    ],
    ['ADMINISTRATOR on @everyone', ctx({ everyone: P.ADMINISTRATOR }), ALL_PERMISSIONS],
  ])('%s', (_name, c, expected) => {
    expect(basePermissions(c)).toBe(expected);
  });
});

describe('Permission Overwrites: the eight steps, in order', () => {
  const base = P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ADD_REACTIONS;
  const c = ctx({ everyone: base, roleBits: { [A]: 0n, [B]: 0n }, memberRoleIds: [A, B] });
  it.each([
    ['no overwrites: the base permissions', [], base],
    ['3. @everyone deny', [role(GUILD, 0n, P.SEND_MESSAGES)], P.VIEW_CHANNEL | P.ADD_REACTIONS],
    ['4. @everyone allow after its deny', [role(GUILD, P.SEND_MESSAGES | P.ATTACH_FILES, P.SEND_MESSAGES)], base | P.ATTACH_FILES],
    ['5. a role deny beats the @everyone allow', [role(GUILD, P.ATTACH_FILES, 0n), role(A, 0n, P.ATTACH_FILES)], base],
    ['6. a role allow beats the @everyone deny', [role(GUILD, 0n, P.SEND_MESSAGES), role(A, P.SEND_MESSAGES, 0n)], base],
    ['7. a member deny beats a role allow', [role(A, P.ATTACH_FILES, 0n), member(ME, 0n, P.ATTACH_FILES)], base],
    ['8. a member allow beats a role deny', [role(A, 0n, P.SEND_MESSAGES), member(ME, P.SEND_MESSAGES, 0n)], base],
    ['an overwrite for a role the member lacks does nothing', [role('203', 0n, P.SEND_MESSAGES)], base],
    ['an overwrite for another member does nothing', [member('902', 0n, P.SEND_MESSAGES)], base],
  ])('%s', (_name, overwrites, expected) => {
    expect(channelPermissions(c, overwrites, CATEGORY)).toBe(expected);
  });

  it('Permission Hierarchy example: role A denies VIEW_CHANNEL on #coolstuff, role B allows it: the user sees it', () => {
    const overwrites = [role(A, 0n, P.VIEW_CHANNEL), role(B, P.VIEW_CHANNEL, 0n)];
    expect(hasAll(channelPermissions(ctx({ everyone: 0n, memberRoleIds: [A, B] }), overwrites, TEXT), P.VIEW_CHANNEL)).toBe(true);
    // "regardless of the role positions": the order of the member's roles or of the overwrites does not matter.
    expect(hasAll(channelPermissions(ctx({ everyone: 0n, memberRoleIds: [B, A] }), overwrites.reverse(), TEXT), P.VIEW_CHANNEL)).toBe(true);
  });

  it('"ADMINISTRATOR overrides any potential permission overwrites"', () => {
    const admin = ctx({ roleBits: { [A]: P.ADMINISTRATOR }, memberRoleIds: [A] });
    expect(channelPermissions(admin, [role(GUILD, 0n, ALL_PERMISSIONS), member(ME, 0n, ALL_PERMISSIONS)], TEXT)).toBe(ALL_PERMISSIONS);
  });

  it('the owner has everything in every channel', () => {
    expect(channelPermissions(ctx({ userId: OWNER, everyone: 0n }), [member(OWNER, 0n, P.VIEW_CHANNEL)], VOICE)).toBe(ALL_PERMISSIONS);
  });
});

describe('Implicit Permissions', () => {
  it('"Denying a user or a role VIEW_CHANNEL on a channel implicitly denies other permissions"', () => {
    const c = ctx({ everyone: P.VIEW_CHANNEL | P.SEND_MESSAGES | P.MANAGE_MESSAGES });
    expect(channelPermissions(c, [role(GUILD, 0n, P.VIEW_CHANNEL)], TEXT)).toBe(0n);
    expect(channelPermissions(c, [member(ME, 0n, P.VIEW_CHANNEL)])).toBe(0n);
  });

  it('"Denying SEND_MESSAGES implicitly denies MENTION_EVERYONE, SEND_TTS_MESSAGES, ATTACH_FILES, and EMBED_LINKS"', () => {
    const sending = P.MENTION_EVERYONE | P.SEND_TTS_MESSAGES | P.ATTACH_FILES | P.EMBED_LINKS;
    const c = ctx({ everyone: P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ADD_REACTIONS | sending });
    expect(channelPermissions(c, [role(GUILD, 0n, P.SEND_MESSAGES)], TEXT)).toBe(P.VIEW_CHANNEL | P.ADD_REACTIONS);
    expect(channelPermissions(c, [], TEXT)).toBe(P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ADD_REACTIONS | sending);
  });

  it('"For voice and stage channels, denying the CONNECT permission also implicitly denies ... MANAGE_CHANNELS"', () => {
    const c = ctx({ everyone: P.VIEW_CHANNEL | P.CONNECT | P.SPEAK | P.MANAGE_CHANNELS | P.MUTE_MEMBERS });
    expect(channelPermissions(c, [role(GUILD, 0n, P.CONNECT)], VOICE)).toBe(P.VIEW_CHANNEL | P.MUTE_MEMBERS);
    // In a text channel CONNECT means nothing, so nothing goes with it.
    expect(channelPermissions(c, [role(GUILD, 0n, P.CONNECT)], TEXT)).toBe(P.VIEW_CHANNEL | P.SPEAK | P.MANAGE_CHANNELS | P.MUTE_MEMBERS);
  });
});

describe('Inherited Permissions (Threads)', () => {
  const parentOverwrites = [role(GUILD, 0n, P.SEND_MESSAGES)];
  it('"The SEND_MESSAGES permission is not inherited; users must have SEND_MESSAGES_IN_THREADS"', () => {
    const c = ctx({ everyone: P.VIEW_CHANNEL | P.SEND_MESSAGES_IN_THREADS | P.ATTACH_FILES });
    // The parent (an announcement channel) denies sending; its threads still allow it.
    expect(hasAll(channelPermissions(c, parentOverwrites, 5), P.SEND_MESSAGES)).toBe(false);
    expect(hasAll(channelPermissions(c, parentOverwrites, PUBLIC_THREAD), P.SEND_MESSAGES | P.ATTACH_FILES)).toBe(true);
    const noThreads = ctx({ everyone: P.VIEW_CHANNEL | P.SEND_MESSAGES | P.ATTACH_FILES });
    expect(hasAll(channelPermissions(noThreads, [], PUBLIC_THREAD), P.SEND_MESSAGES)).toBe(false);
    // Without sending, attaching goes too (the implicit rule, in threads as well).
    expect(hasAll(channelPermissions(noThreads, [], PUBLIC_THREAD), P.ATTACH_FILES)).toBe(false);
  });

  it('"Users must have the VIEW_CHANNEL permission to view any threads in the channel"', () => {
    const c = ctx({ everyone: P.VIEW_CHANNEL | P.SEND_MESSAGES_IN_THREADS });
    expect(channelPermissions(c, [role(GUILD, 0n, P.VIEW_CHANNEL)], PUBLIC_THREAD)).toBe(0n);
  });
});

describe('Permissions For Timed Out/Quarantined Members', () => {
  const everything = P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY | P.SEND_MESSAGES | P.CHANGE_NICKNAME | P.KICK_MEMBERS;
  it('"Timed out members will temporarily lose all permissions except VIEW_CHANNEL and READ_MESSAGE_HISTORY"', () => {
    const c = ctx({ everyone: everything, timedOut: true });
    expect(basePermissions(c)).toBe(P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY);
    expect(channelPermissions(c, [member(ME, P.SEND_MESSAGES, 0n)], TEXT)).toBe(P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY);
  });

  it('"This also applies to quarantined members, with the addition of the CHANGE_NICKNAME permission"', () => {
    const c = ctx({ everyone: everything, quarantined: true });
    expect(basePermissions(c)).toBe(P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY | P.CHANGE_NICKNAME);
  });

  it('"Owners and users with the ADMINISTRATOR permission are exempt"', () => {
    expect(basePermissions(ctx({ userId: OWNER, timedOut: true, quarantined: true }))).toBe(ALL_PERMISSIONS);
    const admin = ctx({ roleBits: { [A]: P.ADMINISTRATOR }, memberRoleIds: [A], timedOut: true });
    expect(basePermissions(admin)).toBe(ALL_PERMISSIONS);
    expect(channelPermissions(admin, [], TEXT)).toBe(ALL_PERMISSIONS);
  });

  it('a timeout applies until communication_disabled_until; quarantine comes from the AutoMod member flags', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(memberRestrictions(new Date(now + 1000), 0, now)).toEqual({ timedOut: true, quarantined: false });
    expect(memberRestrictions(new Date(now - 1000), 0, now)).toEqual({ timedOut: false, quarantined: false });
    expect(memberRestrictions(null, 1 << 7, now)).toEqual({ timedOut: false, quarantined: true });
    expect(memberRestrictions(null, 1 << 10, now).quarantined).toBe(true);
    expect(memberRestrictions(null, 1 << 0, now).quarantined).toBe(false);
  });
});

describe('parseBits', () => {
  it.each([
    ['0', 0n],
    ['2112', 2112n],
    ['18446744073709551615', (1n << 64n) - 1n],
  ])('%s is a bitfield', (text, bits) => expect(parseBits(text)).toBe(bits));
  it.each(['', '-1', '1.5', '0x10', ' 1', '18446744073709551616', '123456789012345678901', 'abc'])('%j is not', (text) =>
    expect(parseBits(text)).toBeUndefined(),
  );
});
