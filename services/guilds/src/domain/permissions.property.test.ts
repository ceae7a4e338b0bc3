import { describe, expect, it } from 'vitest';
import { naivePermissions, type NaiveCase, type NaiveOverwrite } from './permissions.naive.js';
import { basePermissions, channelPermissions, type GuildPermissionContext } from './permissions.js';

// The implementation against the naive statement over random guilds. Deterministic: the seed is
// PERM_SEED or a fixed one, and a failure names the seed and the case to replay it.
const SEED = Number(process.env.PERM_SEED ?? 0x5eed_2026);
const CASES = Number(process.env.PERM_CASES ?? 5000);

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHANNEL_TYPES = [0, 2, 4, 5, 10, 11, 12, 13, 14, 15, 16];
const ADMINISTRATOR = 3;

function randomCase(rand: () => number): NaiveCase {
  const chance = (p: number) => rand() < p;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  // Bits: mostly the defined 0..53, now and then a higher one; dense or sparse; ADMINISTRATOR rarely.
  const bits = (density: number): bigint => {
    let value = 0n;
    for (let bit = 0; bit < 64; bit++) {
      if (bit === ADMINISTRATOR) continue;
      if (chance(bit <= 53 ? density : density / 10)) value |= 1n << BigInt(bit);
    }
    return chance(0.05) ? value | (1n << BigInt(ADMINISTRATOR)) : value;
  };
  const guildId = '1000';
  const userId = '2000';
  const otherUser = '2001';
  const roleIds = Array.from({ length: Math.floor(rand() * 10) }, (_, i) => String(3000 + i));
  const roles = [guildId, ...roleIds].map((id) => ({ id, permissions: bits(pick([0.05, 0.3, 0.7])) }));
  if (chance(0.1)) roles.shift(); // a guild whose @everyone role is missing: it grants nothing
  const memberRoleIds = roleIds.filter(() => chance(0.4));
  if (chance(0.1)) memberRoleIds.push('3999'); // a role id no longer in the guild
  const overwrites: NaiveOverwrite[] = [];
  const overwrite = (type: number, id: string) =>
    overwrites.push({ type, id, allow: bits(pick([0.05, 0.2])), deny: bits(pick([0.05, 0.2])) });
  if (chance(0.6)) overwrite(0, guildId);
  for (const id of [...roleIds, '3999']) if (chance(0.3)) overwrite(0, id);
  if (chance(0.5)) overwrite(1, userId);
  if (chance(0.3)) overwrite(1, otherUser);
  return {
    guild: { id: guildId, ownerId: chance(0.1) ? userId : otherUser, roles },
    member: { userId, roleIds: memberRoleIds, timedOut: chance(0.15), quarantined: chance(0.15) },
    ...(chance(0.85) ? { channel: { type: pick(CHANNEL_TYPES), overwrites } } : {}),
  };
}

function implementation(c: NaiveCase): bigint {
  const ctx: GuildPermissionContext = {
    guildId: c.guild.id,
    ownerId: c.guild.ownerId,
    roles: new Map(c.guild.roles.map((r) => [r.id, r])),
    userId: c.member.userId,
    memberRoleIds: c.member.roleIds,
    timedOut: c.member.timedOut,
    quarantined: c.member.quarantined,
  };
  return c.channel ? channelPermissions(ctx, c.channel.overwrites, c.channel.type) : basePermissions(ctx);
}

describe('permissions: the implementation agrees with the naive statement of the page', () => {
  it(`over ${CASES} random guilds (seed ${SEED})`, () => {
    const rand = prng(SEED);
    let checked = 0;
    let nonTrivial = 0;
    for (let i = 0; i < CASES; i++) {
      const c = randomCase(rand);
      const expected = naivePermissions(c);
      const actual = implementation(c);
      if (actual !== expected) {
        throw new Error(
          `case ${i} of seed ${SEED} (replay: PERM_SEED=${SEED}): expected ${expected}, got ${actual}\n${JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}`,
        );
      }
      checked++;
      if (expected !== 0n) nonTrivial++;
    }
    expect(checked).toBe(CASES);
    // The generator must reach interesting cases, not just empty answers.
    expect(nonTrivial).toBeGreaterThan(CASES / 4);
  });
});
