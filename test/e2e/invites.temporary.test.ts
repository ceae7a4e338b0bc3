import { describe, expect, it } from 'vitest';
import { api } from './client.js';
import { online, people, type Person } from './social.fixtures.js';

async function temporaryInvite(owner: Person): Promise<{ guildId: string; code: string }> {
  const guild = await api('POST', '/guilds', { token: owner.token, body: { name: 'temporary' } });
  const guildId = guild.json.id as string;
  const channel = await api('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'visit' } });
  const invite = await api('POST', `/channels/${channel.json.id as string}/invites`, { token: owner.token, body: { temporary: true } });
  expect(invite.json.temporary).toBe(true);
  return { guildId, code: invite.json.code as string };
}

const guildsOf = async (p: Person) =>
  ((await api('GET', '/users/@me/guilds', { token: p.token })).json as unknown as { id: string }[]).map((g) => g.id);

/** Waits until the user is no longer in the guild (the removal follows the disconnect through realtime, NATS and guilds). */
async function leaves(p: Person, guildId: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!(await guildsOf(p)).includes(guildId)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('temporary membership', () => {
  it('when a temporary member closes their last socket, then they are removed and the guild hears GUILD_MEMBER_REMOVE', async () => {
    const [ownerP, visitorP] = await people(2);
    const { guildId, code } = await temporaryInvite(ownerP);
    const owner = await online(ownerP);
    const visitor = await online(visitorP);
    const second = await online(visitorP);
    try {
      expect((await api('POST', `/invites/${code}`, { token: visitor.token })).status).toBe(200);
      await visitor.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && (d.d as { id: string }).id === guildId);
      expect(await guildsOf(visitor)).toContain(guildId);
      visitor.ws.close();
      // Another session of theirs is still connected: still a member.
      const stillThere = await api('GET', `/guilds/${guildId}/members/${visitor.id}`, { token: ownerP.token });
      expect(stillThere.status).toBe(200);
      second.ws.close();
      expect(await leaves(visitor, guildId)).toBe(true);
      await owner.ws.takeThrough((d) => d.t === 'GUILD_MEMBER_REMOVE' && (d.d as { user: { id: string } }).user.id === visitor.id);
    } finally {
      owner.ws.close();
    }
  });

  it('when a temporary member had no socket at acceptance, then they stay until their next disconnect', async () => {
    const [owner, visitorP] = await people(2);
    const { guildId, code } = await temporaryInvite(owner);
    expect((await api('POST', `/invites/${code}`, { token: visitorP.token })).status).toBe(200);
    expect(await guildsOf(visitorP)).toContain(guildId);
    const visitor = await online(visitorP);
    expect(await guildsOf(visitor)).toContain(guildId);
    visitor.ws.close();
    expect(await leaves(visitor, guildId)).toBe(true);
  });

  it('when a temporary member is given a role, then closing their socket leaves them a member', async () => {
    const [owner, visitorP] = await people(2);
    const { guildId, code } = await temporaryInvite(owner);
    const visitor = await online(visitorP);
    expect((await api('POST', `/invites/${code}`, { token: visitor.token })).status).toBe(200);
    const role = await api('POST', `/guilds/${guildId}/roles`, { token: owner.token, body: { name: 'welcome' } });
    await api('PUT', `/guilds/${guildId}/members/${visitor.id}/roles/${role.json.id as string}`, { token: owner.token });
    visitor.ws.close();
    // A later temporary member of another guild leaving proves the disconnect was handled.
    const other = await temporaryInvite(owner);
    const probe = await online(visitorP);
    expect((await api('POST', `/invites/${other.code}`, { token: probe.token })).status).toBe(200);
    probe.ws.close();
    expect(await leaves(visitorP, other.guildId)).toBe(true);
    expect(await guildsOf(visitorP)).toContain(guildId);
  });
});
