import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, userRest } from './client.js';
import { befriend, online, people, strangerId, type Online, type Person } from './social.fixtures.js';
import { createGuild, join } from './webhooks.fixtures.js';
import type { Dispatch } from './ws-client.js';

/**
 * Request Guild Members (op 8) answered with GUILD_MEMBERS_CHUNK, presences in READY and guild
 * presences, over real WebSockets through the edge: `@discordjs/ws` as bots drive it, and a raw
 * `ws` client as user accounts do.
 */

interface Chunk {
  guild_id: string;
  members: { user: { id: string; username: string }; nick: string | null; roles: string[] }[];
  chunk_index: number;
  chunk_count: number;
  not_found?: string[];
  presences?: { user: { id: string }; status: string }[];
  nonce?: string;
}

const chunkWith = (nonce: string) => (d: Dispatch) => d.t === 'GUILD_MEMBERS_CHUNK' && d.d.nonce === nonce;
const presenceOf = (userId: string, status: string) => (d: Dispatch) =>
  d.t === 'PRESENCE_UPDATE' && (d.d as { user: { id: string } }).user.id === userId && d.d.status === status;

let owner: Person;
let bob: Person;
let carol: Person;
let guildId: string;

beforeAll(async () => {
  [owner, bob, carol] = await people(3);
  guildId = await createGuild(owner, 'op 8 e2e');
  await join(guildId, bob);
  await join(guildId, carol);
  const nick = await api('PATCH', `/guilds/${guildId}/members/${carol.id}`, { token: owner.token, body: { nick: 'Zebra Carol' } });
  expect(nick.status).toBe(200);
});

describe('op 8 Request Guild Members through @discordjs/ws', () => {
  /**
   * The owner asks once on a session of their own: the platform answers one request per guild
   * per session every 30 seconds, so each question gets a new session.
   */
  async function chunk(d: Record<string, unknown>): Promise<Chunk> {
    const dispatches: { t: string; d: Chunk }[] = [];
    const ws = new WebSocketManager({ token: owner.token, intents: 0, rest: userRest(owner.token, { retries: 0 }) });
    try {
      const ready = new Promise((resolve) => ws.once(WebSocketShardEvents.Ready, resolve));
      ws.on(WebSocketShardEvents.Dispatch, (payload) => void dispatches.push(payload as never));
      await ws.connect();
      await ready;
      await ws.send(0, { op: 8, d: d as never });
      const answered = () => dispatches.find((x) => x.t === 'GUILD_MEMBERS_CHUNK' && x.d.nonce === d.nonce);
      await expect.poll(answered, { timeout: 10_000 }).toBeDefined();
      return answered()!.d;
    } finally {
      await ws.destroy();
    }
  }

  it('when a client asks by a username prefix, then one chunk holds the members whose name starts with it, with the nonce', async () => {
    const answer = await chunk({ guild_id: guildId, query: bob.username.slice(0, 10).toUpperCase(), limit: 10, nonce: 'by-name' });
    expect(answer).toMatchObject({ guild_id: guildId, chunk_index: 0, chunk_count: 1 });
    expect(answer.members.map((m) => m.user.id)).toEqual([bob.id]);
    expect(answer.members[0]).toMatchObject({ user: { id: bob.id, username: bob.username }, roles: [] });
    expect(answer).not.toHaveProperty('not_found');
  });

  it('when a client asks by a nickname prefix, then the member with that nick is found', async () => {
    const answer = await chunk({ guild_id: guildId, query: 'zebra', limit: 5, nonce: 'by-nick' });
    expect(answer.members.map((m) => [m.user.id, m.nick])).toEqual([[carol.id, 'Zebra Carol']]);
  });

  it('when the owner asks for the whole list (empty query, limit 0), then every member comes back', async () => {
    const answer = await chunk({ guild_id: guildId, query: '', limit: 0, nonce: 'everyone' });
    expect(answer.members.map((m) => m.user.id).sort()).toEqual([owner.id, bob.id, carol.id].sort());
    expect(answer).toMatchObject({ chunk_index: 0, chunk_count: 1 });
  });

  it('when a client asks by ids with one that is no member, then the chunk says it was not found', async () => {
    const nobody = strangerId();
    const answer = await chunk({ guild_id: guildId, user_ids: [carol.id, nobody], nonce: 'by-ids' });
    expect(answer.members.map((m) => m.user.id)).toEqual([carol.id]);
    expect(answer.not_found).toEqual([nobody]);
  });
});

describe('op 8 from a user account (raw ws)', () => {
  let bobOnline: Online;
  let carolOnline: Online;

  beforeAll(async () => {
    [bobOnline, carolOnline] = await Promise.all([online(bob), online(carol)]);
  });
  afterAll(() => {
    bobOnline.ws.close();
    carolOnline.ws.close();
  });

  it('when a member without member permissions asks for the whole list, then no chunk comes for it, and a later request for another guild is answered', async () => {
    const own = await createGuild(carol, 'carol’s own');
    await carolOnline.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && d.d.id === own);
    carolOnline.ws.send({ op: 8, d: { guild_id: guildId, query: '', limit: 0, nonce: 'refused' } });
    carolOnline.ws.send({ op: 8, d: { guild_id: own, user_ids: carol.id, nonce: 'allowed' } });
    const before = await carolOnline.ws.takeThrough(chunkWith('allowed'));
    expect(before.filter((d) => d.t === 'GUILD_MEMBERS_CHUNK')).toEqual([]);
  });

  it('when a session asks for the same guild again within 30 s, then RATE_LIMITED answers with the wait and the nonce, and the socket stays open', async () => {
    const again = await online(bob);
    try {
      again.ws.send({ op: 8, d: { guild_id: guildId, user_ids: [carol.id], nonce: 'first' } });
      again.ws.send({ op: 8, d: { guild_id: guildId, user_ids: [carol.id], nonce: 'second' } });
      await again.ws.takeThrough((d) => d.t === 'RATE_LIMITED');
      const limited = again.ws.dispatches().find((d) => d.t === 'RATE_LIMITED')!;
      expect(limited.d).toEqual({ opcode: 8, retry_after: expect.any(Number), meta: { guild_id: guildId, nonce: 'second' } });
      expect(limited.d.retry_after).toBeGreaterThan(0);
      expect(limited.d.retry_after).toBeLessThanOrEqual(30);
      // The first is answered (its chunk may come before or after: finding members takes longer than refusing).
      await expect.poll(() => again.ws.dispatches().some(chunkWith('first')), { timeout: 10_000 }).toBe(true);
      expect(
        again.ws
          .dispatches()
          .filter((d) => d.t === 'GUILD_MEMBERS_CHUNK')
          .map((d) => d.d.nonce),
      ).toEqual(['first']);
      // Still open: a later request for another guild of the user is answered.
      const own = await createGuild(bob, 'bob’s own');
      await again.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && d.d.id === own);
      again.ws.send({ op: 8, d: { guild_id: own, user_ids: [bob.id], nonce: 'own' } });
      await again.ws.takeThrough(chunkWith('own'));
      expect(again.ws.closeCodeIfClosed).toBeUndefined();
    } finally {
      again.ws.close();
    }
  });

  it('when a client sends more than 120 frames within a minute, then it is closed with 4008', async () => {
    const [someone] = await people(1);
    const theirs = await online(someone);
    for (let i = 0; i < 121; i++) theirs.ws.send({ op: 1, d: null });
    expect(await theirs.ws.closed).toBe(4008);
  });

  it('when presences are asked for, then the chunk carries the presence of the online members as they set it', async () => {
    bobOnline.ws.send({ op: 3, d: { status: 'dnd', since: null, activities: [], afk: false } });
    // Carol, a guild member but no friend of Bob, hears of it with the guild's id.
    await carolOnline.ws.takeThrough(presenceOf(bob.id, 'dnd'));
    const update = carolOnline.ws.dispatches().find(presenceOf(bob.id, 'dnd'))!;
    expect(update.d).toMatchObject({ user: { id: bob.id }, status: 'dnd', guild_id: guildId });

    // Asked on a session of Carol's that has not asked for the guild yet (one request per guild per session every 30 s).
    const asking = await online(carol);
    asking.ws.send({ op: 8, d: { guild_id: [guildId], user_ids: [bob.id, owner.id], presences: true, nonce: 'with-presences' } });
    await asking.ws.takeThrough(chunkWith('with-presences'));
    const answer = asking.ws.dispatches().find(chunkWith('with-presences'))!.d as unknown as Chunk;
    asking.ws.close();
    expect(answer.members.map((m) => m.user.id).sort()).toEqual([bob.id, owner.id].sort());
    // The owner is not connected: no presence for them.
    expect(answer.presences).toEqual([expect.objectContaining({ user: { id: bob.id }, status: 'dnd' })]);
  });

  it('when a guild the user is not in is asked for, then nothing comes for it', async () => {
    const [outsider] = await people(1);
    const elsewhere = await online(outsider);
    try {
      elsewhere.ws.send({ op: 8, d: { guild_id: guildId, user_ids: [bob.id], nonce: 'outside' } });
      const other = await createGuild(outsider, 'own guild');
      // The connection is in its own guild once GUILD_CREATE reached it.
      await elsewhere.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && d.d.id === other);
      elsewhere.ws.send({ op: 8, d: { guild_id: other, user_ids: [outsider.id], nonce: 'own' } });
      const before = await elsewhere.ws.takeThrough(chunkWith('own'));
      expect(before.filter((d) => d.t === 'GUILD_MEMBERS_CHUNK')).toEqual([]);
      expect(elsewhere.ws.dispatches().filter((d) => d.t === 'GUILD_MEMBERS_CHUNK')).toHaveLength(1);
    } finally {
      elsewhere.ws.close();
    }
  });

  it('when op 8 names neither a query nor user ids, then the socket closes with 4001', async () => {
    const [someone] = await people(1);
    const theirs = await online(someone);
    theirs.ws.send({ op: 8, d: { guild_id: guildId } });
    expect(await theirs.ws.closed).toBe(4001);
  });
});

describe('READY presences', () => {
  it('when a friend is online with a status, then READY carries their presence (and merged_presences), and not a stranger’s', async () => {
    const [me, friend, stranger] = await people(3);
    await befriend(me, friend);
    const [friendOnline, strangerOnline] = await Promise.all([online(friend), online(stranger)]);
    const mine = await online(me);
    try {
      friendOnline.ws.send({ op: 3, d: { status: 'idle', since: 0, activities: [{ name: 'Chess', type: 0 }], afk: true } });
      // Once it reached me live, a new connection of mine is sure to find it kept.
      await mine.ws.takeThrough(presenceOf(friend.id, 'idle'));
      strangerOnline.ws.send({ op: 3, d: { status: 'dnd', since: 0, activities: [], afk: false } });
      const again = await online(me);
      try {
        const ready = again.ws.ready.d as unknown as {
          presences: { user: { id: string }; status: string; activities: unknown[] }[];
          merged_presences: { friends: { user_id: string; status: string }[]; guilds: unknown[][] };
        };
        expect(ready.presences).toEqual([
          { user: { id: friend.id }, status: 'idle', activities: [{ name: 'Chess', type: 0 }], client_status: { web: 'idle' } },
        ]);
        expect(ready.merged_presences.friends).toEqual([expect.objectContaining({ user_id: friend.id, status: 'idle' })]);
      } finally {
        again.ws.close();
      }
    } finally {
      for (const p of [mine, friendOnline, strangerOnline]) p.ws.close();
    }
  });

  it('when a friend is offline, then READY has no presence of them', async () => {
    const [me, friend] = await people(2);
    await befriend(me, friend);
    const mine = await online(me);
    try {
      expect((mine.ws.ready.d as unknown as { presences: unknown[] }).presences).toEqual([]);
    } finally {
      mine.ws.close();
    }
  });
});
