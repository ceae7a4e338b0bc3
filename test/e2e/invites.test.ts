import { DiscordAPIError } from '@discordjs/rest';
import { afterAll, describe, expect, it } from 'vitest';
import { api, userRest } from './client.js';
import { online, people, person, type Online, type Person } from './social.fixtures.js';

type Body = Record<string, unknown> & { code?: unknown };
const online_: Online[] = [];
afterAll(() => online_.forEach((p) => p.ws.close()));

async function guildWithChannel(owner: Person, everyonePermissions?: string): Promise<{ guildId: string; channelId: string }> {
  const guild = await api('POST', '/guilds', { token: owner.token, body: { name: 'invite guild' } });
  expect(guild.status).toBe(201);
  const guildId = guild.json.id as string;
  if (everyonePermissions !== undefined) {
    const everyone = await api('PATCH', `/guilds/${guildId}/roles/${guildId}`, {
      token: owner.token,
      body: { permissions: everyonePermissions },
    });
    expect(everyone.status).toBe(200);
  }
  const channel = await api('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'lobby', type: 0 } });
  expect(channel.status).toBe(201);
  return { guildId, channelId: channel.json.id as string };
}

async function invite(owner: Person, channelId: string, body: Record<string, unknown> = {}): Promise<Body> {
  const res = await api('POST', `/channels/${channelId}/invites`, { token: owner.token, body });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json;
}

const memberCount = async (owner: Person, guildId: string) =>
  (await api('GET', `/guilds/${guildId}?with_counts=true`, { token: owner.token })).json.approximate_member_count;

describe('Create Channel Invite', () => {
  it('when the owner creates an invite with no settings, then the defaults and a fresh code come back with the metadata', async () => {
    const owner = await person();
    const { guildId, channelId } = await guildWithChannel(owner);
    const created = await invite(owner, channelId);
    expect(created.code).toMatch(/^[A-Za-z0-9]{8,10}$/);
    expect(created).toMatchObject({
      type: 0,
      guild_id: guildId,
      channel: { id: channelId, type: 0, name: 'lobby' },
      guild: { id: guildId, name: 'invite guild' },
      inviter: { id: owner.id, username: owner.username },
      max_age: 86400,
      max_uses: 0,
      uses: 0,
      temporary: false,
      flags: 0,
    });
    const lifetime = Date.parse(created.expires_at as string) - Date.parse(created.created_at as string);
    expect(lifetime).toBe(86_400_000);
  });

  it('when unique is false the same settings reuse the invite, and unique true always makes a new one', async () => {
    const owner = await person();
    const { channelId } = await guildWithChannel(owner);
    const first = await invite(owner, channelId, { max_age: 0, max_uses: 5 });
    expect(first.expires_at).toBeNull();
    expect((await invite(owner, channelId, { max_age: 0, max_uses: 5 })).code).toBe(first.code);
    expect((await invite(owner, channelId, { max_age: 0, max_uses: 5, unique: true })).code).not.toBe(first.code);
    expect((await invite(owner, channelId, { max_age: 0, max_uses: 4 })).code).not.toBe(first.code);
  });

  it('when the settings are out of range or the body is broken, then 50035 or 50109 and nothing is made', async () => {
    const owner = await person();
    const { channelId } = await guildWithChannel(owner);
    for (const [body, field] of [
      [{ max_age: 5_184_001 }, 'max_age'],
      [{ max_age: -1 }, 'max_age'],
      [{ max_uses: 101 }, 'max_uses'],
      [{ temporary: 'yes' }, 'temporary'],
      [{ flags: 4 }, 'flags'],
      [{ target_type: 1 }, 'target_user_id'],
      [{ target_type: 3 }, 'target_type'],
      [{ role_ids: ['1'] }, 'role_ids'],
    ] as const) {
      const res = await api('POST', `/channels/${channelId}/invites`, { token: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code).toBe(50035);
      expect(Object.keys(res.json.errors ?? {})).toEqual([field]);
    }
    const broken = await api('POST', `/channels/${channelId}/invites`, { token: owner.token, raw: '{"max_age": ' });
    expect(broken.json).toMatchObject({ code: 50109 });
    const list = await api('GET', `/channels/${channelId}/invites`, { token: owner.token });
    expect(list.json).toEqual([]);
  });

  it('when a form body is sent, then its values are read as JSON would carry them', async () => {
    const owner = await person();
    const { channelId } = await guildWithChannel(owner);
    const res = await api('POST', `/channels/${channelId}/invites`, {
      token: owner.token,
      raw: 'max_age=600&max_uses=3&temporary=true',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ max_age: 600, max_uses: 3, temporary: true });
  });

  it('when someone outside the guild, a member without CREATE_INSTANT_INVITE, or nobody asks, then 50001, 50013 and 401', async () => {
    const [owner, member, stranger] = await people(3);
    const { guildId, channelId } = await guildWithChannel(owner, String(1 << 10));
    await joinGuild(owner, member, channelId);
    expect((await api('POST', `/channels/${channelId}/invites`, { token: stranger.token, body: {} })).json.code).toBe(50001);
    expect((await api('POST', `/channels/${channelId}/invites`, { token: member.token, body: {} })).json.code).toBe(50013);
    expect((await api('POST', `/channels/${channelId}/invites`, { body: {} })).status).toBe(401);
    expect((await api('POST', `/channels/1/invites`, { token: owner.token, body: {} })).json.code).toBe(10003);
    expect((await api('GET', `/guilds/${guildId}/invites`, { token: stranger.token })).json.code).toBe(50001);
    expect((await api('GET', `/guilds/1/invites`, { token: stranger.token })).json.code).toBe(10004);
  });

  it('when an invite is made, then those who manage the channel hear INVITE_CREATE and others do not', async () => {
    const [ownerP, memberP] = await people(2);
    const { channelId } = await guildWithChannel(ownerP);
    const owner = await online(ownerP);
    online_.push(owner);
    await joinGuild(ownerP, memberP, channelId);
    const member = await online(memberP);
    online_.push(member);
    const created = await invite(ownerP, channelId, { unique: true });
    const isCreate = (d: { t?: string | null; d: Record<string, unknown> }) => d.t === 'INVITE_CREATE' && d.d.code === created.code;
    await owner.ws.takeThrough(isCreate);
    const event = owner.ws.dispatches().find(isCreate);
    expect(event!.d).toMatchObject({ channel_id: channelId, code: created.code, max_age: 86400, uses: 0, inviter: { id: ownerP.id } });
    // The member's socket hears the owner's deletion (a later event) without having heard the creation.
    const removed = await api('DELETE', `/invites/${created.code as string}`, { token: ownerP.token });
    expect(removed.status).toBe(200);
    await owner.ws.takeThrough((d) => d.t === 'INVITE_DELETE' && d.d.code === created.code);
    const guildEvent = await api('POST', `/guilds/${created.guild_id as string}/channels`, {
      token: ownerP.token,
      body: { name: 'later' },
    });
    await member.ws.takeThrough((d) => d.t === 'CHANNEL_CREATE' && d.d.id === guildEvent.json.id);
    expect(member.ws.dispatches().some((d) => d.t === 'INVITE_CREATE' || d.t === 'INVITE_DELETE')).toBe(false);
  });
});

async function joinGuild(owner: Person, user: Person, channelId: string): Promise<void> {
  const created = await invite(owner, channelId, { max_uses: 1, unique: true });
  const res = await api('POST', `/invites/${created.code as string}`, { token: user.token, body: {} });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
}

describe('Get Invite', () => {
  it('when anyone reads an invite, without a token too, then the invite comes back without metadata and marked viewed', async () => {
    const owner = await person();
    const { guildId, channelId } = await guildWithChannel(owner);
    const created = await invite(owner, channelId);
    const res = await api('GET', `/invites/${created.code as string}?with_counts=true&with_permissions=true`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      code: created.code,
      guild: { id: guildId },
      approximate_member_count: 1,
      approximate_presence_count: expect.any(Number),
      is_nickname_changeable: true,
    });
    expect(res.json).not.toHaveProperty('uses');
    expect((res.json.flags as number) & 2).toBe(2);
    expect((await api('GET', `/invites/${created.code as string}`)).json).not.toHaveProperty('approximate_member_count');
  });

  it('when @discordjs/rest reads an invite, then it parses the platform shape', async () => {
    const owner = await person();
    const { channelId } = await guildWithChannel(owner);
    const created = await invite(owner, channelId);
    const read = (await userRest(owner.token).get(`/invites/${created.code as string}`)) as Body;
    expect(read.code).toBe(created.code);
    const missing = await userRest(owner.token)
      .get('/invites/zzzzzzzz')
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(DiscordAPIError);
    expect((missing as DiscordAPIError).code).toBe(10006);
  });

  it('when a code is unknown or malformed, then 404 10006', async () => {
    for (const code of ['abcdefgh', 'short', 'has-dash1', 'x'.repeat(40)]) {
      const res = await api('GET', `/invites/${code}`);
      expect(res.status).toBe(404);
      expect(res.json.code).toBe(10006);
    }
  });
});

describe('Accept Invite', () => {
  it('when a new user accepts, then they join once; accepting again answers the invite and counts no second use', async () => {
    const [owner, joiner] = await people(2);
    const { guildId, channelId } = await guildWithChannel(owner);
    const created = await invite(owner, channelId, { max_uses: 2 });
    const first = await api('POST', `/invites/${created.code as string}`, { token: joiner.token, body: {} });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ code: created.code, guild: { id: guildId }, new_member: true });
    const again = await api('POST', `/invites/${created.code as string}`, { token: joiner.token });
    expect(again.status).toBe(200);
    expect(again.json.new_member).toBe(false);
    const guilds = await api('GET', '/users/@me/guilds', { token: joiner.token });
    expect((guilds.json as unknown as { id: string }[]).map((g) => g.id)).toContain(guildId);
    const listed = await api('GET', `/channels/${channelId}/invites`, { token: owner.token });
    expect((listed.json as unknown as Body[]).find((i) => i.code === created.code)).toMatchObject({ uses: 1, max_uses: 2 });
  });

  it('when the new member is connected, then GUILD_CREATE reaches their socket', async () => {
    const [owner, joinerP] = await people(2);
    const { guildId, channelId } = await guildWithChannel(owner);
    const joiner = await online(joinerP);
    online_.push(joiner);
    const created = await invite(owner, channelId);
    expect((await api('POST', `/invites/${created.code as string}`, { token: joiner.token })).status).toBe(200);
    await joiner.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && d.d.id === guildId);
  });

  it('when an invite is used up, then it is 404 10006 to read and to accept, never a 500', async () => {
    const [owner, a, b] = await people(3);
    const { channelId } = await guildWithChannel(owner);
    const created = await invite(owner, channelId, { max_uses: 1 });
    expect((await api('POST', `/invites/${created.code as string}`, { token: a.token })).status).toBe(200);
    const read = await api('GET', `/invites/${created.code as string}`);
    expect(read.status).toBe(404);
    expect(read.json.code).toBe(10006);
    const late = await api('POST', `/invites/${created.code as string}`, { token: b.token });
    expect(late.status).toBe(404);
    expect(late.json.code).toBe(10006);
  });

  it('when a banned user accepts, then 40007 and no use is counted', async () => {
    const [owner, banned] = await people(2);
    const { guildId, channelId } = await guildWithChannel(owner);
    const ban = await api('PUT', `/guilds/${guildId}/bans/${banned.id}`, { token: owner.token, body: {} });
    expect(ban.status).toBe(204);
    const created = await invite(owner, channelId, { max_uses: 1 });
    const res = await api('POST', `/invites/${created.code as string}`, { token: banned.token });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe(40007);
    expect((await api('GET', `/invites/${created.code as string}`)).status).toBe(200);
  });

  it('when nobody is signed in, then 401; an unknown code, 10006', async () => {
    const owner = await person();
    const { channelId } = await guildWithChannel(owner);
    const created = await invite(owner, channelId);
    expect((await api('POST', `/invites/${created.code as string}`)).status).toBe(401);
    expect((await api('POST', '/invites/Unknown1', { token: owner.token })).json.code).toBe(10006);
  });

  it('when many users accept an invite of max_uses 3 at once, then exactly 3 join and the rest get 10006', async () => {
    const owner = await person();
    const { guildId, channelId } = await guildWithChannel(owner);
    const created = await invite(owner, channelId, { max_uses: 3 });
    const joiners = await people(16);
    const answers = await Promise.all(joiners.map((j) => api('POST', `/invites/${created.code as string}`, { token: j.token })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 404 && a.json.code === 10006)).toBe(true);
    expect(await memberCount(owner, guildId)).toBe(4);
  });

  it('when a group DM invite is accepted, then the user becomes a recipient', async () => {
    const [owner, friend, other, joiner] = await people(4);
    const group = await api('POST', '/users/@me/channels', { token: owner.token, body: { recipients: [friend.id, other.id] } });
    expect(group.status).toBe(200);
    const channelId = group.json.id as string;
    const bad = await api('POST', `/channels/${channelId}/invites`, { token: owner.token, body: { max_age: 0 } });
    expect(bad.json.code).toBe(50035);
    const created = await invite(owner, channelId, { max_age: 3600, max_uses: 5 });
    expect(created).toMatchObject({ type: 1, max_age: 3600, max_uses: 0, channel: { id: channelId, type: 3 } });
    expect(created).not.toHaveProperty('guild');
    const counted = await api('GET', `/invites/${created.code as string}?with_counts=true`);
    expect(counted.json).toMatchObject({ approximate_member_count: 3, channel: { recipients: expect.any(Array) } });
    const res = await api('POST', `/invites/${created.code as string}`, { token: joiner.token });
    expect(res.status).toBe(200);
    const channel = await api('GET', `/channels/${channelId}`, { token: joiner.token });
    expect(channel.status).toBe(200);
    expect((channel.json.recipients as { id: string }[]).map((r) => r.id).sort()).toEqual([owner.id, friend.id, other.id].sort());
    const stranger = await person();
    expect((await api('POST', `/channels/${channelId}/invites`, { token: stranger.token, body: {} })).json.code).toBe(50001);
  });
});

describe('Delete Invite and the lists', () => {
  it('when a member without the permissions deletes or lists, then 50013; the owner deletes and gets the invite back', async () => {
    const [owner, member] = await people(2);
    const { guildId, channelId } = await guildWithChannel(owner);
    await joinGuild(owner, member, channelId);
    const created = await invite(owner, channelId, { max_age: 0 });
    const code = created.code as string;
    expect((await api('DELETE', `/invites/${code}`, { token: member.token })).json.code).toBe(50013);
    expect((await api('GET', `/guilds/${guildId}/invites`, { token: member.token })).json.code).toBe(50013);
    expect((await api('GET', `/channels/${channelId}/invites`, { token: member.token })).json.code).toBe(50013);
    const list = await api('GET', `/guilds/${guildId}/invites`, { token: owner.token });
    expect((list.json as unknown as Body[]).find((i) => i.code === code)).toMatchObject({ uses: 0, max_uses: 0, max_age: 0 });
    const removed = await api('DELETE', `/invites/${code}`, { token: owner.token });
    expect(removed.status).toBe(200);
    expect(removed.json).toMatchObject({ code, uses: 0 });
    expect((await api('GET', `/invites/${code}`)).json.code).toBe(10006);
    expect((await api('DELETE', `/invites/${code}`, { token: owner.token })).json.code).toBe(10006);
    expect((await api('GET', `/guilds/${guildId}/invites`, { token: (await person()).token })).json.code).toBe(50001);
  });

  it('when VIEW_AUDIT_LOG is all a member has, then the guild list comes without metadata', async () => {
    const [owner, auditor] = await people(2);
    const { guildId, channelId } = await guildWithChannel(owner);
    await joinGuild(owner, auditor, channelId);
    const role = await api('POST', `/guilds/${guildId}/roles`, {
      token: owner.token,
      body: { name: 'audit', permissions: String(1 << 7) },
    });
    await api('PUT', `/guilds/${guildId}/members/${auditor.id}/roles/${role.json.id as string}`, { token: owner.token });
    const created = await invite(owner, channelId, { max_age: 60 });
    const list = await api('GET', `/guilds/${guildId}/invites`, { token: auditor.token });
    expect(list.status).toBe(200);
    const row = (list.json as unknown as Body[]).find((i) => i.code === created.code);
    expect(row).toBeDefined();
    expect(row).not.toHaveProperty('uses');
  });
});
