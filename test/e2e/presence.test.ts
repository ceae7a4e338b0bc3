import { afterAll, describe, expect, it } from 'vitest';
import { befriend, closeSocialGrpc, expectNoContent, online, people, put } from './social.fixtures.js';

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
      await theirs.ws.takeThrough(presenceOf(me.id));
      const update = theirs.ws.dispatches().find(presenceOf(me.id));
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
