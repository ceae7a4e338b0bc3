import { describe, expect, it } from 'vitest';
import { api } from './client.js';
import { befriend, people, type Person } from './social.fixtures.js';
import { createGuild, join } from './webhooks.fixtures.js';

// Issue 17 item 7: every partial user the API answers has one shape, whichever service renders it:
// members, bans, DM recipients, relationships, other users by id, and op 8's chunk members alike.

type User = Record<string, unknown> & { id: string };

const keys = (user: User) => Object.keys(user).sort();

async function get(p: Person, path: string) {
  const res = await api('GET', path, { token: p.token });
  expect(res.status, `${path}: ${JSON.stringify(res.json)}`).toBe(200);
  return res.json as unknown;
}

describe('partial users', () => {
  it('when members, bans, DM recipients, relationships and users by id show a user, then each has the same fields', async () => {
    const [owner, member, banned, friend] = await people(4);
    const guildId = await createGuild(owner, 'partial users');
    await join(guildId, member);
    expect((await api('PUT', `/guilds/${guildId}/bans/${banned.id}`, { token: owner.token, body: {} })).status).toBe(204);
    await befriend(owner, friend);
    const dm = await api('POST', '/users/@me/channels', { token: owner.token, body: { recipients: [member.id] } });
    expect(dm.status, JSON.stringify(dm.json)).toBe(200);

    const members = (await get(owner, `/guilds/${guildId}/members?limit=10`)) as { user: User }[];
    const memberUser = members.find((m) => m.user.id === member.id)!.user;
    const bans = (await get(owner, `/guilds/${guildId}/bans`)) as { user: User }[];
    const bannedUser = bans.find((b) => b.user.id === banned.id)!.user;
    const recipient = (dm.json.recipients as User[])[0]!;
    const relationships = (await get(owner, '/users/@me/relationships')) as { user: User }[];
    const friendUser = relationships.find((r) => r.user.id === friend.id)!.user;
    const byId = (await get(owner, `/users/${member.id}`)) as User;

    const expected = keys(friendUser);
    expect(expected).toEqual(expect.arrayContaining(['id', 'username', 'global_name', 'avatar', 'flags', 'public_flags', 'primary_guild']));
    for (const [where, user] of Object.entries({ member: memberUser, ban: bannedUser, recipient, byId }))
      expect(keys(user), where).toEqual(expected);
  });
});
