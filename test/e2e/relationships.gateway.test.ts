import { afterAll, describe, expect, it } from 'vitest';
import { api } from './client.js';
import {
  befriend,
  closeSocialGrpc,
  eventSig,
  expectNoContent,
  online,
  people,
  relationships,
  settle,
  type Person,
  put,
} from './social.fixtures.js';
import { GatewayClient } from './ws-client.js';

const del = (from: Person, path: string) => api('DELETE', `/users/@me/relationships/${path}`, { token: from.token });
const byId = <T extends { id: string }>(list: T[]) => [...list].sort((x, y) => x.id.localeCompare(y.id));

afterAll(() => closeSocialGrpc());

describe.concurrent('relationship events on one gateway connection', () => {
  it('when a user adds, removes, blocks, unblocks, ignores and unignores, then every event arrives on the same connection with s rising by 1', async () => {
    const [me, b1, b2, b3, b4] = await people(5);
    const a = await online(me);
    try {
      const steps: [() => Promise<unknown>, string[]][] = [
        [() => put(a, b1), ['ADD 4']],
        [() => put(b1, a, { confirm_stranger_request: true }), ['ADD 1']],
        [() => del(a, b1.id), ['REMOVE 1']],
        [() => put(a, b2, { type: 2 }), ['ADD 2']],
        [() => del(a, b2.id), ['REMOVE 2']],
        [() => put(b3, a), ['ADD 3 notify']],
        [() => del(a, b3.id), ['REMOVE 3']],
        [() => api('PUT', `/users/@me/relationships/${b4.id}/ignore`, { token: a.token }), ['ADD 0']],
        [() => del(a, `${b4.id}/ignore`), ['REMOVE 0']],
        // B2 blocking A is nothing A hears about; A re-blocking and unblocking is.
        [() => put(b2, a, { type: 2 }), []],
        [() => put(a, b2, { type: 2 }), ['ADD 2']],
        [() => del(a, b2.id), ['REMOVE 2']],
        [() => befriend(a, b1), ['ADD 4', 'ADD 1']],
        [() => put(b1, a, { type: 2 }), ['REMOVE 1']],
        [() => api('POST', '/users/@me/relationships', { token: a.token, body: { username: b4.username } }), ['ADD 4']],
      ];
      for (const [step, expected] of steps) {
        await step();
        expect((await settle(a)).map(eventSig)).toEqual(expected);
      }

      expect(a.ws.closeCodeIfClosed).toBeUndefined();
      const seqs = a.ws.dispatches().map((d) => d.s);
      expect(seqs[0]).toBe(1);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      // Every step's events plus one marker per step, after READY.
      expect(seqs.length).toBe(1 + steps.length + steps.flatMap(([, e]) => e).length);
    } finally {
      a.ws.close();
    }
  });
});

describe.concurrent('READY', () => {
  it('when a user identifies, then READY carries their relationships exactly as GET renders them', async () => {
    const [me, friend, asked, asker, blocked, ignored] = await people(6);
    await befriend(me, friend);
    expectNoContent(await api('PATCH', `/users/@me/relationships/${friend.id}`, { token: me.token, body: { nickname: 'pal' } }));
    expectNoContent(await put(me, asked));
    expectNoContent(await put(asker, me));
    expectNoContent(await put(me, blocked, { type: 2 }));
    expectNoContent(await api('PUT', `/users/@me/relationships/${ignored.id}/ignore`, { token: me.token }));

    const listed = await relationships(me);
    expect(Object.fromEntries(listed.map((r) => [r.id, r.type]))).toEqual({
      [friend.id]: 1,
      [asked.id]: 4,
      [asker.id]: 3,
      [blocked.id]: 2,
      [ignored.id]: 0,
    });
    const ws = await GatewayClient.connect(me.token);
    try {
      expect(ws.ready.s).toBe(1);
      expect(byId(ws.ready.d.relationships as { id: string }[])).toEqual(byId(listed));
    } finally {
      ws.close();
    }

    // The one blocked sees nothing of it in their own READY.
    const theirs = await GatewayClient.connect(blocked.token);
    try {
      expect(theirs.ready.d.relationships).toEqual([]);
    } finally {
      theirs.close();
    }
  });

  it('when a new user identifies, then READY has an empty relationships list', async () => {
    const [me] = await people(1);
    const ws = await GatewayClient.connect(me.token);
    try {
      expect(ws.ready.d.relationships).toEqual([]);
      expect(ws.ready.d.user.id).toBe(me.id);
    } finally {
      ws.close();
    }
  });
});
