import { afterAll, describe, expect, it } from 'vitest';
import { api, uniqueName } from './client.js';
import { befriend, online, people, person, relationships, type Online, type Person } from './social.fixtures.js';

type Body = Record<string, unknown>;
const sockets: Online[] = [];
afterAll(() => sockets.forEach((p) => p.ws.close()));

async function guildWithChannel(owner: Person): Promise<{ guildId: string; channelId: string }> {
  const guild = await api('POST', '/guilds', { token: owner.token, body: { name: 'friends guild' } });
  const channel = await api('POST', `/guilds/${guild.json.id as string}/channels`, { token: owner.token, body: { name: 'hall' } });
  return { guildId: guild.json.id as string, channelId: channel.json.id as string };
}

describe('friend invites', () => {
  it('when a user makes a friend invite and another accepts it, then they are friends and both hear RELATIONSHIP_ADD', async () => {
    const [inviterP, friendP] = await people(2);
    const [inviter, friend] = await Promise.all([online(inviterP), online(friendP)]);
    sockets.push(inviter, friend);
    const made = await api('POST', '/users/@me/invites', { token: inviter.token, body: {} });
    expect(made.status).toBe(200);
    expect(made.json).toMatchObject({ type: 2, channel: null, inviter: { id: inviter.id }, max_age: 604800, max_uses: 5, uses: 0 });
    const code = made.json.code as string;
    expect(code).toMatch(/^[A-Za-z0-9]{8,10}$/);
    const read = await api('GET', `/invites/${code}`);
    expect(read.json).toMatchObject({ type: 2, code, inviter: { id: inviter.id } });
    const accepted = await api('POST', `/invites/${code}`, { token: friend.token });
    expect(accepted.status).toBe(200);
    expect(accepted.json).toMatchObject({ type: 2, code });
    await inviter.ws.takeThrough((d) => d.t === 'RELATIONSHIP_ADD' && (d.d as { id?: string }).id === friend.id);
    await friend.ws.takeThrough((d) => d.t === 'RELATIONSHIP_ADD' && (d.d as { id?: string }).id === inviter.id);
    expect((await relationships(friend)).find((r) => r.id === inviter.id)?.type).toBe(1);
    const list = await api('GET', '/users/@me/invites', { token: inviter.token });
    expect((list.json as unknown as Body[]).find((i) => i.code === code)).toMatchObject({ uses: 1 });
  });

  it('when the client brings its own code, then it is used once; taken or malformed codes are 50020', async () => {
    const [a, b] = await people(2);
    const own = uniqueName('F')
      .slice(0, 10)
      .replace(/[^A-Za-z0-9]/g, 'x');
    const made = await api('POST', '/users/@me/invites', { token: a.token, body: { code: own } });
    expect(made.json.code).toBe(own);
    for (const code of [own, 'bad-code!', 'short']) {
      const res = await api('POST', '/users/@me/invites', { token: b.token, body: { code } });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe(50020);
    }
    expect((await api('POST', '/users/@me/invites', { token: b.token, body: { code: 5 } })).json.code).toBe(50035);
    expect((await api('POST', '/users/@me/invites', { body: {} })).status).toBe(401);
  });

  it('when the inviter blocks someone, then that user can neither see nor accept the invite', async () => {
    const [inviter, blocked] = await people(2);
    const code = (await api('POST', '/users/@me/invites', { token: inviter.token, body: {} })).json.code as string;
    expect((await api('PUT', `/users/@me/relationships/${blocked.id}`, { token: inviter.token, body: { type: 2 } })).status).toBe(204);
    expect((await api('GET', `/invites/${code}`, { token: blocked.token })).json.code).toBe(10006);
    const accept = await api('POST', `/invites/${code}`, { token: blocked.token });
    expect(accept.json.code).toBe(80001);
    const list = await api('GET', '/users/@me/invites', { token: inviter.token });
    expect((list.json as unknown as Body[]).find((i) => i.code === code)).toMatchObject({ uses: 0 });
  });

  it('when all friend invites are revoked, then they come back with their metadata and are gone', async () => {
    const user = await person();
    const first = (await api('POST', '/users/@me/invites', { token: user.token, body: {} })).json.code;
    const second = (await api('POST', '/users/@me/invites', { token: user.token, body: {} })).json.code;
    const revoked = await api('DELETE', '/users/@me/invites', { token: user.token });
    expect(revoked.status).toBe(200);
    expect((revoked.json as unknown as Body[]).map((i) => i.code).sort()).toEqual([first, second].sort());
    expect(await api('GET', '/users/@me/invites', { token: user.token }).then((r) => r.json)).toEqual([]);
    expect((await api('GET', `/invites/${first as string}`)).json.code).toBe(10006);
  });
});

describe('Get Invite Friend Members', () => {
  it('when the caller has friends in the invite guild, then exactly those are listed; none for a friend invite', async () => {
    const [owner, me, friendIn, friendOut] = await people(4);
    await befriend(me, friendIn);
    await befriend(me, friendOut);
    const { channelId } = await guildWithChannel(owner);
    const code = (await api('POST', `/channels/${channelId}/invites`, { token: owner.token, body: {} })).json.code as string;
    expect((await api('POST', `/invites/${code}`, { token: friendIn.token })).status).toBe(200);
    const res = await api('GET', `/invites/${code}/friend-members`, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ friend_member_ids: [friendIn.id] });
    const friendCode = (await api('POST', '/users/@me/invites', { token: owner.token, body: {} })).json.code as string;
    expect((await api('GET', `/invites/${friendCode}/friend-members`, { token: me.token })).json).toEqual({ friend_member_ids: [] });
    expect((await api('GET', `/invites/${code}/friend-members`)).status).toBe(401);
    expect((await api('GET', '/invites/Nope12345/friend-members', { token: me.token })).json.code).toBe(10006);
  });
});

describe('registration with an invite, and invites of deleted channels', () => {
  it('when an account registers with an invite code, then it joins the guild; a bad code does not fail the registration', async () => {
    const owner = await person();
    const { guildId, channelId } = await guildWithChannel(owner);
    const code = (await api('POST', `/channels/${channelId}/invites`, { token: owner.token, body: {} })).json.code as string;
    const register = async (invite: string) => {
      const username = uniqueName();
      const res = await api('POST', '/auth/register', {
        body: {
          username,
          email: `${username}@example.com`,
          password: 'correct horse battery',
          date_of_birth: '1990-05-17',
          consent: true,
          invite,
        },
      });
      expect(res.status).toBe(201);
      return res.json.token as string;
    };
    const token = await register(code);
    const guilds = await api('GET', '/users/@me/guilds', { token });
    expect((guilds.json as unknown as { id: string }[]).map((g) => g.id)).toEqual([guildId]);
    const other = await register('Unknown99');
    expect((await api('GET', '/users/@me/guilds', { token: other })).json).toEqual([]);
  });

  it('when a channel is deleted, then its invites are gone', async () => {
    const owner = await person();
    const { channelId } = await guildWithChannel(owner);
    const code = (await api('POST', `/channels/${channelId}/invites`, { token: owner.token, body: {} })).json.code as string;
    expect((await api('DELETE', `/channels/${channelId}`, { token: owner.token })).status).toBe(200);
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      status = (await api('GET', `/invites/${code}`)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(404);
  });
});
