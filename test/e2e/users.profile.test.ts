import { DiscordAPIError } from '@discordjs/rest';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { api, userRest } from './client.js';
import { befriend, expectNoContent, people, portOffset, put, socialGrpc, strangerId, type Person } from './social.fixtures.js';

/**
 * Other users by id, as real clients ask right after login: `GET /users/{id}` and
 * `GET /users/{id}/profile` through the edge with @discordjs/rest.
 */

const guilds = createClient(GuildsService, `127.0.0.1:${50054 + portOffset()}`, 5000);
afterAll(() => guilds.close());

interface Profile {
  user: { id: string; username: string; bio: string };
  mutual_guilds?: { id: string; nick: string | null }[];
  mutual_friends?: { id: string }[];
  mutual_friends_count?: number;
  user_profile?: unknown;
  guild_member?: { nick: string | null; user: { id: string } };
}

const restFor = (p: Person) => userRest(p.token, { retries: 0 });
const profileOf = (viewer: Person, target: string, query = '') =>
  restFor(viewer).get(`/users/${target}/profile`, { query: new URLSearchParams(query) }) as Promise<Profile>;

async function refusal(request: Promise<unknown>): Promise<{ status: number; code: number | string } | string> {
  return request.then(
    () => 'answered',
    (e: unknown) => (e instanceof DiscordAPIError ? { status: e.status, code: e.code } : String(e)),
  );
}

/** A guild `owner` creates through the API, with `members` added as joining would (guilds' AddMember). */
async function guildOf(owner: Person, ...members: Person[]): Promise<string> {
  const created = (await restFor(owner).post('/guilds', { body: { name: 'profiles' } })) as { id: string };
  for (const m of members) await guilds.addMember({ guildId: created.id, userId: m.id });
  return created.id;
}

describe.concurrent('GET /users/{user.id}', () => {
  it('when any user asks for another by id, then the partial user the platform renders', async () => {
    const [a, b] = await people(2);
    const user = (await restFor(a).get(`/users/${b.id}`)) as Record<string, unknown>;
    expect(user).toMatchObject({ id: b.id, username: b.username, discriminator: '0', public_flags: 0, flags: 0, primary_guild: null });
    expect(user).not.toHaveProperty('email');
    expect(user).not.toHaveProperty('phone');
  });

  it('when the id is unknown, not a snowflake, or the caller has no token, then 404 10013, 400 50035 and 401', async () => {
    const [a] = await people(1);
    expect(await refusal(restFor(a).get(`/users/${strangerId()}`))).toEqual({ status: 404, code: 10013 });
    expect(await refusal(restFor(a).get(`/users/${strangerId()}/profile`))).toEqual({ status: 404, code: 10013 });
    expect((await api('GET', '/users/12ab', { token: a.token })).status).toBe(404);
    const huge = await api('GET', '/users/99999999999999999999', { token: a.token });
    expect([huge.status, huge.json.code]).toEqual([400, 50035]);
    expect((await api('GET', `/users/${a.id}`)).status).toBe(401);
    expect((await api('GET', `/users/${a.id}/profile`)).status).toBe(401);
    const badQuery = await api('GET', `/users/${a.id}/profile?with_mutual_guilds=maybe`, { token: a.token });
    expect([badQuery.status, badQuery.json.code]).toEqual([400, 50035]);
  });
});

describe.concurrent('GET /users/{user.id}/profile', () => {
  it('when the caller has no reason to see the user, then 403 50001; one’s own profile is always there', async () => {
    const [a, b] = await people(2);
    expect(await refusal(profileOf(a, b.id))).toEqual({ status: 403, code: 50001 });
    const own = await profileOf(a, a.id);
    expect(own).toMatchObject({ user: { id: a.id, username: a.username, bio: '' }, connected_accounts: [], mutual_guilds: [] });
  });

  it('when they share guilds, then the mutual guilds with the user’s nickname in each, and the member object on request', async () => {
    const [a, b] = await people(2);
    const first = await guildOf(a, b);
    const second = await guildOf(b, a);
    await guildOf(b);
    await restFor(b).patch(`/guilds/${first}/members/@me`, { body: { nick: 'bee' } });
    const profile = await profileOf(a, b.id);
    expect(profile.user).toMatchObject({ id: b.id, username: b.username });
    expect(profile.mutual_guilds).toEqual(
      expect.arrayContaining([
        { id: first, nick: 'bee' },
        { id: second, nick: null },
      ]),
    );
    expect(profile.mutual_guilds).toHaveLength(2);
    expect(profile.user_profile).toMatchObject({ bio: '' });
    const without = await profileOf(a, b.id, 'with_mutual_guilds=false');
    expect(without).not.toHaveProperty('mutual_guilds');
    const inGuild = await profileOf(a, b.id, `guild_id=${first}`);
    expect(inGuild.guild_member).toMatchObject({ nick: 'bee', user: { id: b.id } });
  });

  it('when they are friends, then mutual friends and their count on request', async () => {
    const [a, b, c, d] = await people(4);
    await befriend(a, b);
    await befriend(a, c);
    await befriend(b, c);
    await befriend(b, d);
    const plain = await profileOf(a, b.id);
    expect(plain).not.toHaveProperty('mutual_friends');
    expect(plain.mutual_guilds).toEqual([]);
    const full = await profileOf(a, b.id, 'with_mutual_friends=true&with_mutual_friends_count=true');
    expect(full.mutual_friends?.map((u) => u.id)).toEqual([c.id]);
    expect(full.mutual_friends_count).toBe(1);
  });

  it('when the user sent the caller a friend request, then the caller may see them, and not the other way round', async () => {
    const [a, b] = await people(2);
    expectNoContent(await put(b, a));
    expect((await profileOf(a, b.id)).user.id).toBe(b.id);
    expect(await refusal(profileOf(b, a.id))).toEqual({ status: 403, code: 50001 });
  });

  it('when the user is one of the caller’s friend suggestions, then the caller may see them', async () => {
    const [a, b] = await people(2);
    expect(await refusal(profileOf(a, b.id))).toEqual({ status: 403, code: 50001 });
    await socialGrpc().addFriendSuggestion({ userId: a.id, suggestedUserId: b.id, reasons: [] });
    expect((await profileOf(a, b.id)).user.id).toBe(b.id);
  });

  it('when the user blocked the caller, then only who they are: no mutual guilds, friends or profile', async () => {
    const [a, b] = await people(2);
    await guildOf(a, b);
    expectNoContent(await put(b, a, { type: 2 }));
    const profile = await profileOf(a, b.id, 'with_mutual_friends=true');
    expect(profile.user.id).toBe(b.id);
    expect(profile).not.toHaveProperty('mutual_guilds');
    expect(profile).not.toHaveProperty('mutual_friends');
    expect(profile).not.toHaveProperty('user_profile');
    // The blocker still sees the one they blocked (they share a guild).
    expect((await profileOf(b, a.id)).mutual_guilds).toHaveLength(1);
  });
});
