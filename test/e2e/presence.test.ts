import { afterAll, describe, expect, it } from 'vitest';
import { befriend, closeSocialGrpc, expectNoContent, online, people, put, type Online, type Person } from './social.fixtures.js';
import { createGuild, join } from './webhooks.fixtures.js';
import { GatewayClient, type Dispatch } from './ws-client.js';

afterAll(() => closeSocialGrpc());

const presenceOf = (userId: string) => (d: { t: string; d: unknown }) =>
  d.t === 'PRESENCE_UPDATE' && (d.d as { user: { id: string } }).user.id === userId;

describe('presence (op 3)', () => {
  it('when a user sets their status, then their friends’ sockets get PRESENCE_UPDATE with it, and a stranger’s do not', async () => {
    const [me, friend, stranger] = await people(3);
    await befriend(me, friend);
    const [mine, theirs, strangers] = await Promise.all([online(me), online(friend), online(stranger)]);
    try {
      const game = { name: 'Chess', type: 0 };
      mine.ws.send({ op: 3, d: { status: 'dnd', since: null, activities: [game], afk: false } });
      // The friend first heard the user come online (their connecting), then the status they set.
      await theirs.ws.takeThrough((d) => presenceOf(me.id)(d) && (d.d as { status: string }).status === 'dnd');
      const update = theirs.ws.dispatches().filter(presenceOf(me.id)).at(-1);
      expect(update).toMatchObject({
        op: 0,
        t: 'PRESENCE_UPDATE',
        d: { user: { id: me.id }, status: 'dnd', activities: [game], client_status: { web: 'dnd' } },
      });

      // Invisible is shown to others as offline, with nothing of what the user is doing.
      mine.ws.send({ op: 3, d: { status: 'invisible', since: 0, activities: [game], afk: false } });
      await theirs.ws.takeThrough((d) => presenceOf(me.id)(d) && (d.d as { status: string }).status === 'offline');
      const offline = theirs.ws
        .dispatches()
        .filter((d) => presenceOf(me.id)(d))
        .at(-1);
      expect(offline?.d).toEqual({ user: { id: me.id }, status: 'offline', activities: [], client_status: {} });

      // The stranger's socket was told nothing of it: its next dispatch is an event
      // that reached the stream after both presences (a friend request the stranger sends).
      expectNoContent(await put(stranger, friend));
      const before = await strangers.ws.takeThrough((d) => d.t === 'RELATIONSHIP_ADD');
      expect(before.map((d) => d.t)).toEqual([]);
    } finally {
      for (const p of [mine, theirs, strangers]) p.ws.close();
    }
  });

  it('when op 3 carries an invalid status, then the socket closes with 4001', async () => {
    const [me] = await people(1);
    const mine = await online(me);
    mine.ws.send({ op: 3, d: { status: 'sleeping', since: null, activities: [], afk: false } });
    expect(await mine.ws.closed).toBe(4001);
  });
});

/** The statuses of every PRESENCE_UPDATE of `userId` the socket got, once it has one past its cursor. */
async function presenceStatuses(watcher: Online, userId: string): Promise<unknown[]> {
  await watcher.ws.takeThrough(presenceOf(userId));
  return watcher.ws
    .dispatches()
    .filter(presenceOf(userId))
    .map((d) => d.d.status);
}

/** The last PRESENCE_UPDATE of `userId` the socket got, once it has one past its cursor. */
async function nextPresence(watcher: Online, userId: string): Promise<Dispatch | undefined> {
  await watcher.ws.takeThrough(presenceOf(userId));
  return watcher.ws.dispatches().filter(presenceOf(userId)).at(-1);
}

/** The stranger's socket heard nothing of the user: its next dispatch is an event that reached the stream after (a friend request it sends). */
async function heardNothing(stranger: Online, to: Person): Promise<void> {
  expectNoContent(await put(stranger, to));
  const before = await stranger.ws.takeThrough((d) => d.t === 'RELATIONSHIP_ADD');
  expect(before.map((d) => d.t)).toEqual([]);
}

describe('presence on connect and at the last disconnect', () => {
  it('when a user connects with a presence, then their friends and guild members get it; when their last session closes, they see them offline; a stranger hears nothing', async () => {
    const [me, friend, member, stranger] = await people(4);
    await befriend(me, friend);
    const guildId = await createGuild(member, 'presence e2e');
    await join(guildId, me);
    const [theirs, members, strangers] = await Promise.all([online(friend), online(member), online(stranger)]);
    try {
      const game = { name: 'Chess', type: 0 };
      const presence = { status: 'idle', since: 0, activities: [game], afk: true };
      const mine = await GatewayClient.connect(me.token, undefined, undefined, { presence });
      const shown = { user: { id: me.id }, status: 'idle', activities: [game], client_status: { web: 'idle' } };
      expect(mine.ready.d).toMatchObject({ sessions: [{ status: 'idle', activities: [game] }] });
      expect((await nextPresence(theirs, me.id))?.d).toEqual(shown);
      expect((await nextPresence(members, me.id))?.d).toEqual({ ...shown, guild_id: guildId });

      // A friend connecting now finds the user as they connected, in READY.
      const later = await GatewayClient.connect(friend.token);
      expect((later.ready.d as unknown as { presences: unknown[] }).presences).toEqual([shown]);
      later.close();

      // Closing with 1000 ends the session: no resume can follow, so the user is offline at once.
      mine.close(1000);
      const offline = { user: { id: me.id }, status: 'offline', activities: [], client_status: {} };
      expect((await nextPresence(theirs, me.id))?.d).toEqual(offline);
      expect((await nextPresence(members, me.id))?.d).toEqual({ ...offline, guild_id: guildId });

      await heardNothing(strangers, friend);
    } finally {
      for (const p of [theirs, members, strangers]) p.ws.close();
    }
  });

  it('when a user connects invisible, then nobody is told they came, and a friend connecting sees them offline', async () => {
    const [me, friend] = await people(2);
    await befriend(me, friend);
    const theirs = await online(friend);
    const mine = await GatewayClient.connect(me.token, undefined, undefined, {
      presence: { status: 'invisible', since: 0, activities: [{ name: 'Chess', type: 0 }], afk: false },
    });
    try {
      const later = await GatewayClient.connect(friend.token);
      expect((later.ready.d as unknown as { presences: unknown[] }).presences).toEqual([]);
      later.close();
      // The first thing the friend hears of the user is their going online with op 3.
      mine.send({ op: 3, d: { status: 'online', since: 0, activities: [], afk: false } });
      expect(await presenceStatuses(theirs, me.id)).toEqual(['online']);
    } finally {
      mine.close();
      theirs.ws.close();
    }
  });

  it('when a second session of an online user connects without a presence (status unknown), then nobody is told anything new', async () => {
    const [me, friend] = await people(2);
    await befriend(me, friend);
    const theirs = await online(friend);
    const first = await GatewayClient.connect(me.token, undefined, undefined, {
      presence: { status: 'dnd', since: 0, activities: [], afk: false },
    });
    const second = await GatewayClient.connect(me.token, undefined, undefined, {
      presence: { status: 'unknown', since: 0, activities: [], afk: false },
    });
    try {
      expect((await nextPresence(theirs, me.id))?.d).toMatchObject({ status: 'dnd' });
      // Closing one of two sessions leaves the user present; closing the other makes them offline.
      second.close(1000);
      await second.closed;
      first.close(1000);
      expect(await presenceStatuses(theirs, me.id)).toEqual(['dnd', 'offline']);
    } finally {
      theirs.ws.close();
    }
  });
});
