import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api } from './client.js';
import { online, people, settle, type Online, type Person } from './social.fixtures.js';
import { GatewayClient, type Dispatch } from './ws-client.js';

type Guild = { guildId: string; voiceId: string; textId: string; code: string };

/** A guild with a text channel and a voice channel, and a guest invite to the voice channel. */
async function guestGuild(owner: Person): Promise<Guild> {
  const guildId = (await api('POST', '/guilds', { token: owner.token, body: { name: 'guest house' } })).json.id as string;
  const voice = await api('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'talk', type: 2 } });
  const text = await api('POST', `/guilds/${guildId}/channels`, { token: owner.token, body: { name: 'chat', type: 0 } });
  const invite = await api('POST', `/channels/${voice.json.id as string}/invites`, { token: owner.token, body: { flags: 1 } });
  expect(invite.status, JSON.stringify(invite.json)).toBe(200);
  return { guildId, voiceId: voice.json.id as string, textId: text.json.id as string, code: invite.json.code as string };
}

const isGuild = (name: string, guildId: string) => (d: Dispatch) => d.t === name && (d.d as { id?: string }).id === guildId;

async function acceptAsGuest(guest: Online, ws: GatewayClient, g: Guild): Promise<Dispatch> {
  const accepted = await api('POST', `/invites/${g.code}`, { token: guest.token, body: { session_id: ws.ready.d.session_id } });
  expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
  expect(accepted.json).toMatchObject({ code: g.code, new_member: false, guild: { id: g.guildId } });
  await ws.takeThrough(isGuild('GUILD_CREATE', g.guildId));
  return ws.dispatches().find(isGuild('GUILD_CREATE', g.guildId))!;
}

describe('guest invites', () => {
  it('when a guest accepts with a session, then that session alone gets a GUILD_CREATE of only the voice channel and nothing else of the guild until GUILD_DELETE', async () => {
    const [ownerP, guestP] = await people(2);
    const g = await guestGuild(ownerP);
    const owner = await online(ownerP);
    const guest = await online(guestP);
    const otherSession = await GatewayClient.connect(guestP.token);
    try {
      const noSession = await api('POST', `/invites/${g.code}`, { token: guest.token, body: {} });
      expect(noSession.json).toMatchObject({ code: 50035, errors: { session_id: expect.anything() } });

      const create = await acceptAsGuest(guest, guest.ws, g);
      const d = create.d as { id: string; channels: { id: string; type: number }[]; members: { flags: number; user: { id: string } }[] };
      expect(d.channels).toEqual([expect.objectContaining({ id: g.voiceId, type: 2 })]);
      expect(d.members).toEqual([expect.objectContaining({ flags: 1 << 4, user: expect.objectContaining({ id: guest.id }) })]);
      // Not a member: not listed, not in their guilds.
      expect((await api('GET', `/guilds/${g.guildId}/members/${guest.id}`, { token: owner.token })).json).toMatchObject({ code: 10007 });
      expect((await api('GET', '/users/@me/guilds', { token: guest.token })).json).toEqual([]);

      // The guild's own events: its members hear them, the guest session does not.
      expect((await api('PATCH', `/channels/${g.textId}`, { token: owner.token, body: { name: 'renamed' } })).status).toBe(200);
      expect((await api('PATCH', `/channels/${g.voiceId}`, { token: owner.token, body: { name: 'louder' } })).status).toBe(200);
      expect((await api('PATCH', `/guilds/${g.guildId}`, { token: owner.token, body: { name: 'guest house 2' } })).status).toBe(200);
      await owner.ws.takeThrough((x) => x.t === 'GUILD_UPDATE');
      // Banning the guest ends the access: their session hears GUILD_DELETE and nothing in between.
      expect((await api('PUT', `/guilds/${g.guildId}/bans/${guest.id}`, { token: owner.token, body: {} })).status).toBe(204);
      const between = await guest.ws.takeThrough(isGuild('GUILD_DELETE', g.guildId));
      expect(between.map((x) => x.t)).toEqual([]);
      await owner.ws.takeThrough((x) => x.t === 'GUILD_BAN_ADD');

      // The user's other session heard nothing of it: everything before a marker sent to the user now.
      const heard = await settle({ ...guest, ws: otherSession });
      expect(heard.filter((x) => x.t !== 'FRIEND_SUGGESTION_CREATE').map((x) => x.t)).toEqual([]);
      expect((await api('POST', `/invites/${g.code}`, { token: guest.token, body: { session_id: randomUUID() } })).json).toMatchObject({
        code: 40007,
      });
    } finally {
      owner.ws.close();
      guest.ws.close();
      otherSession.close();
    }
  });

  it('when the guest session’s connection closes (another of theirs still open), then the access ends: resuming the session brings GUILD_DELETE', async () => {
    const [ownerP, guestP] = await people(2);
    const g = await guestGuild(ownerP);
    const guest = await online(guestP);
    // Keeps the user connected: only the guest connection's own close can end the access.
    const stays = await GatewayClient.connect(guestP.token);
    await acceptAsGuest(guest, guest.ws, g);
    const sessionId = guest.ws.ready.d.session_id;
    const seq = guest.ws.seq;
    guest.ws.close(4000);
    await guest.ws.closed;
    const resumed = await GatewayClient.resume(guest.token, sessionId, seq);
    try {
      const before = await resumed.takeThrough(isGuild('GUILD_DELETE', g.guildId));
      expect(before.filter((x) => x.t !== 'RESUMED').map((x) => x.t)).toEqual([]);
      // A new accept with a new session gives a new access (the invite is unlimited).
      const fresh = await GatewayClient.connect(guest.token);
      try {
        await acceptAsGuest(guest, fresh, g);
        expect(resumed.dispatches().filter(isGuild('GUILD_CREATE', g.guildId))).toEqual([]);
      } finally {
        fresh.close();
      }
    } finally {
      resumed.close();
      stays.close();
    }
  });

  it('when a member accepts a guest invite, then they are answered as a member and no guest access is made', async () => {
    const [ownerP] = await people(1);
    const g = await guestGuild(ownerP);
    const owner = await online(ownerP);
    try {
      const accepted = await api('POST', `/invites/${g.code}`, { token: owner.token, body: { session_id: owner.ws.ready.d.session_id } });
      expect(accepted.status).toBe(200);
      expect(accepted.json).toMatchObject({ new_member: false });
      expect((await api('GET', `/guilds/${g.guildId}/members/${owner.id}`, { token: owner.token })).json.flags).toBe(0);
    } finally {
      owner.ws.close();
    }
  });
});
