import { describe, expect, it } from 'vitest';
import { ApiError } from '@kith/platform';
import { ProfileService, type ProfileGuilds, type ProfileQueries } from './profile.service.js';
import type { MutualGuild } from './ports.js';
import type { PartialUser } from './relationship.types.js';

const A = '100000000000000001';
const B = '100000000000000002';
const C = '100000000000000003';
const BOT = '100000000000000009';
const GUILD = '200000000000000001';

const user = (id: string, extra: Partial<PartialUser> = {}): PartialUser => ({
  id,
  username: `u${id.slice(-1)}`,
  discriminator: '0',
  publicFlags: 0n,
  bot: false,
  ...extra,
});

function setup() {
  const users = new Map([A, B, C].map((id) => [id, user(id, { bio: `bio of ${id.slice(-1)}` })]));
  users.set(BOT, user(BOT, { bot: true }));
  const types = new Map<string, number>();
  const suggested = new Set<string>();
  const mutual = new Map<string, MutualGuild[]>();
  const friendsInCommon: string[] = [];
  const queries: ProfileQueries = {
    types: async (a, b) => ({ aToB: types.get(`${a}:${b}`) ?? 0, bToA: types.get(`${b}:${a}`) ?? 0 }),
    mutualFriends: async () => friendsInCommon,
    isSuggested: async (a, b) => suggested.has(`${a}:${b}`),
  };
  const guilds: ProfileGuilds = {
    mutualGuilds: async (a, b) => mutual.get(`${a}:${b}`) ?? [],
    member: async (guildId, userId) => ({
      userId,
      nick: 'nick',
      roleIds: [],
      joinedAt: '2026-01-01T00:00:00.000Z',
      pending: false,
      temporary: false,
      flags: 0,
      avatar: '',
      deaf: false,
      mute: false,
      user: users.get(userId),
      guildId,
    }),
  };
  const service = new ProfileService(
    { getUsers: async (ids) => new Map(ids.flatMap((id) => (users.has(id) ? [[id, users.get(id)!]] : []))) },
    guilds,
    queries,
  );
  return { service, types, suggested, mutual, friendsInCommon };
}

const all = { withMutualGuilds: true, withMutualFriends: true, withMutualFriendsCount: true };
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof ApiError ? e.body.code : String(e)),
  );

describe('ProfileService', () => {
  it('when the user does not exist, then 10013 for the user and the profile', async () => {
    const s = setup();
    expect(await code(s.service.user('100000000000000077'))).toBe(10013);
    expect(await code(s.service.profile(A, '100000000000000077', all))).toBe(10013);
  });

  it('when the caller has no relationship, guild or suggestion with the user, then 50001; a bot is always visible', async () => {
    const s = setup();
    expect(await code(s.service.profile(A, B, all))).toBe(50001);
    s.types.set(`${A}:${B}`, 4);
    expect(await code(s.service.profile(A, B, all))).toBe(50001);
    expect(await code(s.service.profile(A, BOT, all))).toBe('ok');
  });

  it.each([
    ['a friend', (s: ReturnType<typeof setup>) => s.types.set(`${A}:${B}`, 1)],
    ['someone whose request came in', (s: ReturnType<typeof setup>) => s.types.set(`${A}:${B}`, 3)],
    ['a friend suggestion', (s: ReturnType<typeof setup>) => s.suggested.add(`${A}:${B}`)],
    ['someone sharing a guild', (s: ReturnType<typeof setup>) => s.mutual.set(`${A}:${B}`, [{ id: GUILD, memberCount: 2, nick: 'bee' }])],
  ])('when the user is %s, then the profile is shown', async (_name, relate) => {
    const s = setup();
    relate(s);
    const profile = await s.service.profile(A, B, all);
    expect(profile).toMatchObject({ user: { id: B, bio: 'bio of 2' }, user_profile: { bio: 'bio of 2' }, badges: [] });
  });

  it('when mutual friends and guilds are asked, then they come with the other user’s nickname and the count', async () => {
    const s = setup();
    s.mutual.set(`${A}:${B}`, [{ id: GUILD, memberCount: 2, nick: 'bee' }]);
    s.friendsInCommon.push(C);
    const profile = await s.service.profile(A, B, { ...all, guildId: GUILD });
    expect(profile).toMatchObject({
      mutual_guilds: [{ id: GUILD, nick: 'bee' }],
      mutual_friends: [{ id: C }],
      mutual_friends_count: 1,
      guild_member: { nick: 'nick', user: { id: B } },
    });
    const bare = await s.service.profile(A, B, { withMutualGuilds: false, withMutualFriends: false, withMutualFriendsCount: false });
    expect(bare).not.toHaveProperty('mutual_guilds');
    expect(bare).not.toHaveProperty('mutual_friends');
    expect(bare).not.toHaveProperty('mutual_friends_count');
    expect(bare).not.toHaveProperty('guild_member');
  });

  it('when the user blocked the caller, then only the user and no profile, guilds or friends', async () => {
    const s = setup();
    s.mutual.set(`${A}:${B}`, [{ id: GUILD, memberCount: 2, nick: null }]);
    s.types.set(`${B}:${A}`, 2);
    const profile = await s.service.profile(A, B, all);
    expect(Object.keys(profile).sort()).toEqual(['connected_accounts', 'premium_guild_since', 'premium_since', 'premium_type', 'user']);
  });
});
