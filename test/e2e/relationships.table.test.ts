import { afterAll, describe, it } from 'vitest';
import { api } from './client.js';
import {
  closeSocialGrpc,
  eventSig,
  expectNoContent,
  put,
  relationships,
  rowSig,
  settle,
  type Online,
  peopleOnline,
} from './social.fixtures.js';

/**
 * Every starting state of a pair × every action of A, through the edge with real sockets: the HTTP
 * answer, both users' rows afterwards, and exactly the relationship events each socket received.
 * The users are strangers (no mutual friend), so every incoming request is a stranger request.
 */

type Start =
  'none' | 'A→B pending' | 'B→A pending' | 'friends' | 'A blocks B' | 'B blocks A' | 'A ignores B' | 'B ignores A' | 'both block';
type Action =
  | 'POST by username'
  | 'PUT {}'
  | 'PUT type -1'
  | 'PUT type 1'
  | 'PUT type 2'
  | 'DELETE'
  | 'PUT ignore'
  | 'DELETE ignore'
  | 'PATCH nickname';

const ARRANGE: Record<Start, (a: Online, b: Online) => Promise<void>> = {
  none: async () => undefined,
  'A→B pending': async (a, b) => expectNoContent(await put(a, b, {})),
  'B→A pending': async (a, b) => expectNoContent(await put(b, a, {})),
  friends: async (a, b) => {
    expectNoContent(await put(a, b, {}));
    expectNoContent(await put(b, a, { confirm_stranger_request: true }));
  },
  'A blocks B': async (a, b) => expectNoContent(await put(a, b, { type: 2 })),
  'B blocks A': async (a, b) => expectNoContent(await put(b, a, { type: 2 })),
  'A ignores B': async (a, b) => expectNoContent(await api('PUT', `/users/@me/relationships/${b.id}/ignore`, { token: a.token })),
  'B ignores A': async (a, b) => expectNoContent(await api('PUT', `/users/@me/relationships/${a.id}/ignore`, { token: b.token })),
  'both block': async (a, b) => {
    expectNoContent(await put(a, b, { type: 2 }));
    expectNoContent(await put(b, a, { type: 2 }));
  },
};

const ACT: Record<Action, (a: Online, b: Online) => ReturnType<typeof api>> = {
  'POST by username': (a, b) =>
    api('POST', '/users/@me/relationships', { token: a.token, body: { username: b.username, discriminator: null } }),
  // Type omitted and no consent to a stranger's request: accepting one is refused.
  'PUT {}': (a, b) => put(a, b, {}),
  'PUT type -1': (a, b) => put(a, b, { type: -1, confirm_stranger_request: true }),
  'PUT type 1': (a, b) => put(a, b, { type: 1, confirm_stranger_request: true }),
  'PUT type 2': (a, b) => put(a, b, { type: 2 }),
  DELETE: (a, b) => api('DELETE', `/users/@me/relationships/${b.id}`, { token: a.token }),
  'PUT ignore': (a, b) => api('PUT', `/users/@me/relationships/${b.id}/ignore`, { token: a.token }),
  'DELETE ignore': (a, b) => api('DELETE', `/users/@me/relationships/${b.id}/ignore`, { token: a.token }),
  'PATCH nickname': (a, b) => api('PATCH', `/users/@me/relationships/${b.id}`, { token: a.token, body: { nickname: 'bestie' } }),
};

/** 204, or the JSON error code (80013: a stranger's request accepted without `confirm_stranger_request`). */
type Answer = 204 | 80001 | 80005 | 80006 | 80007 | 80013;

// start, action → answer; A's row, B's row afterwards; the events A's and B's sockets received, in order.
type Row = [Start, Action, Answer, string, string, string[], string[]];

// Rows the action leaves alone, and nothing sent to anyone.
const unchanged = (start: Start, action: Action, answer: Answer, rowA: string, rowB: string): Row => [
  start,
  action,
  answer,
  rowA,
  rowB,
  [],
  [],
];

const TABLE: Row[] = [
  ['none', 'POST by username', 204, '4', '3 stranger', ['ADD 4'], ['ADD 3 notify']],
  ['none', 'PUT {}', 204, '4', '3 stranger', ['ADD 4'], ['ADD 3 notify']],
  ['none', 'PUT type -1', 204, '4', '3 stranger', ['ADD 4'], ['ADD 3 notify']],
  unchanged('none', 'PUT type 1', 80005, '-', '-'),
  ['none', 'PUT type 2', 204, '2', '-', ['ADD 2'], []],
  unchanged('none', 'DELETE', 204, '-', '-'),
  ['none', 'PUT ignore', 204, '0 ignored', '-', ['ADD 0'], []],
  unchanged('none', 'DELETE ignore', 204, '-', '-'),
  unchanged('none', 'PATCH nickname', 80006, '-', '-'),

  // Asking again is a quiet no-op.
  unchanged('A→B pending', 'POST by username', 204, '4', '3 stranger'),
  unchanged('A→B pending', 'PUT {}', 204, '4', '3 stranger'),
  unchanged('A→B pending', 'PUT type -1', 204, '4', '3 stranger'),
  unchanged('A→B pending', 'PUT type 1', 80005, '4', '3 stranger'),
  ['A→B pending', 'PUT type 2', 204, '2', '-', ['ADD 2'], ['REMOVE 3']],
  ['A→B pending', 'DELETE', 204, '-', '-', ['REMOVE 4'], ['REMOVE 3']],
  ['A→B pending', 'PUT ignore', 204, '4 ignored', '3 stranger', ['UPDATE 4 ignored'], []],
  unchanged('A→B pending', 'DELETE ignore', 204, '4', '3 stranger'),
  unchanged('A→B pending', 'PATCH nickname', 80006, '4', '3 stranger'),

  // POST has no consent field: sending a request to whoever asked you accepts theirs.
  ['B→A pending', 'POST by username', 204, '1', '1', ['ADD 1'], ['ADD 1']],
  unchanged('B→A pending', 'PUT {}', 80013, '3 stranger', '4'),
  ['B→A pending', 'PUT type -1', 204, '1', '1', ['ADD 1'], ['ADD 1']],
  ['B→A pending', 'PUT type 1', 204, '1', '1', ['ADD 1'], ['ADD 1']],
  ['B→A pending', 'PUT type 2', 204, '2', '-', ['ADD 2'], ['REMOVE 4']],
  ['B→A pending', 'DELETE', 204, '-', '-', ['REMOVE 3'], ['REMOVE 4']],
  ['B→A pending', 'PUT ignore', 204, '3 stranger ignored', '4', ['UPDATE 3 ignored'], []],
  unchanged('B→A pending', 'DELETE ignore', 204, '3 stranger', '4'),
  unchanged('B→A pending', 'PATCH nickname', 80006, '3 stranger', '4'),

  unchanged('friends', 'POST by username', 80007, '1', '1'),
  unchanged('friends', 'PUT {}', 80007, '1', '1'),
  unchanged('friends', 'PUT type -1', 80007, '1', '1'),
  unchanged('friends', 'PUT type 1', 80005, '1', '1'),
  ['friends', 'PUT type 2', 204, '2', '-', ['ADD 2'], ['REMOVE 1']],
  ['friends', 'DELETE', 204, '-', '-', ['REMOVE 1'], ['REMOVE 1']],
  ['friends', 'PUT ignore', 204, '1 ignored', '1', ['UPDATE 1 ignored'], []],
  unchanged('friends', 'DELETE ignore', 204, '1', '1'),
  ['friends', 'PATCH nickname', 204, '1 nick=bestie', '1', ['UPDATE 1 nick=bestie'], []],

  unchanged('A blocks B', 'POST by username', 80001, '2', '-'),
  unchanged('A blocks B', 'PUT {}', 80001, '2', '-'),
  unchanged('A blocks B', 'PUT type -1', 80001, '2', '-'),
  unchanged('A blocks B', 'PUT type 1', 80005, '2', '-'),
  unchanged('A blocks B', 'PUT type 2', 204, '2', '-'),
  ['A blocks B', 'DELETE', 204, '-', '-', ['REMOVE 2'], []],
  ['A blocks B', 'PUT ignore', 204, '2 ignored', '-', ['UPDATE 2 ignored'], []],
  unchanged('A blocks B', 'DELETE ignore', 204, '2', '-'),
  unchanged('A blocks B', 'PATCH nickname', 80006, '2', '-'),

  unchanged('B blocks A', 'POST by username', 80001, '-', '2'),
  unchanged('B blocks A', 'PUT {}', 80001, '-', '2'),
  unchanged('B blocks A', 'PUT type -1', 80001, '-', '2'),
  unchanged('B blocks A', 'PUT type 1', 80005, '-', '2'),
  ['B blocks A', 'PUT type 2', 204, '2', '2', ['ADD 2'], []],
  unchanged('B blocks A', 'DELETE', 204, '-', '2'),
  ['B blocks A', 'PUT ignore', 204, '0 ignored', '2', ['ADD 0'], []],
  unchanged('B blocks A', 'DELETE ignore', 204, '-', '2'),
  unchanged('B blocks A', 'PATCH nickname', 80006, '-', '2'),

  // A's ignore rides along on whatever A's row becomes.
  ['A ignores B', 'POST by username', 204, '4 ignored', '3 stranger', ['ADD 4'], ['ADD 3 notify']],
  ['A ignores B', 'PUT {}', 204, '4 ignored', '3 stranger', ['ADD 4'], ['ADD 3 notify']],
  ['A ignores B', 'PUT type -1', 204, '4 ignored', '3 stranger', ['ADD 4'], ['ADD 3 notify']],
  unchanged('A ignores B', 'PUT type 1', 80005, '0 ignored', '-'),
  ['A ignores B', 'PUT type 2', 204, '2 ignored', '-', ['ADD 2'], []],
  // The NONE row is nothing but the ignore: removing the relationship removes it.
  ['A ignores B', 'DELETE', 204, '-', '-', ['REMOVE 0'], []],
  unchanged('A ignores B', 'PUT ignore', 204, '0 ignored', '-'),
  ['A ignores B', 'DELETE ignore', 204, '-', '-', ['REMOVE 0'], []],
  unchanged('A ignores B', 'PATCH nickname', 80006, '0 ignored', '-'),

  // B ignores A: A's request reaches B without a notification; B's ignore survives a block.
  ['B ignores A', 'POST by username', 204, '4', '3 stranger ignored', ['ADD 4'], ['ADD 3 silent']],
  ['B ignores A', 'PUT {}', 204, '4', '3 stranger ignored', ['ADD 4'], ['ADD 3 silent']],
  ['B ignores A', 'PUT type -1', 204, '4', '3 stranger ignored', ['ADD 4'], ['ADD 3 silent']],
  unchanged('B ignores A', 'PUT type 1', 80005, '-', '0 ignored'),
  ['B ignores A', 'PUT type 2', 204, '2', '0 ignored', ['ADD 2'], []],
  unchanged('B ignores A', 'DELETE', 204, '-', '0 ignored'),
  ['B ignores A', 'PUT ignore', 204, '0 ignored', '0 ignored', ['ADD 0'], []],
  unchanged('B ignores A', 'DELETE ignore', 204, '-', '0 ignored'),
  unchanged('B ignores A', 'PATCH nickname', 80006, '-', '0 ignored'),

  unchanged('both block', 'POST by username', 80001, '2', '2'),
  unchanged('both block', 'PUT {}', 80001, '2', '2'),
  unchanged('both block', 'PUT type -1', 80001, '2', '2'),
  unchanged('both block', 'PUT type 1', 80005, '2', '2'),
  unchanged('both block', 'PUT type 2', 204, '2', '2'),
  ['both block', 'DELETE', 204, '-', '2', ['REMOVE 2'], []],
  ['both block', 'PUT ignore', 204, '2 ignored', '2', ['UPDATE 2 ignored'], []],
  unchanged('both block', 'DELETE ignore', 204, '2', '2'),
  unchanged('both block', 'PATCH nickname', 80006, '2', '2'),
];

/** The Partial Relationship Structure of RELATIONSHIP_UPDATE and RELATIONSHIP_REMOVE. */
const PARTIAL_KEYS = ['id', 'nickname', 'since', 'stranger_request', 'type', 'user_ignored'];

afterAll(() => closeSocialGrpc());

describe.concurrent('relationship state machine through the edge, with real sockets', () => {
  it.for(TABLE)(
    'when the pair is "%s" and A does %s, then %s',
    async ([start, action, answer, rowA, rowB, eventsA, eventsB], { expect }) => {
      const [a, b] = await peopleOnline(2);
      try {
        await ARRANGE[start](a, b);
        await Promise.all([settle(a), settle(b)]);

        const res = await ACT[action](a, b);
        if (answer === 204) expect(res.status, JSON.stringify(res.json)).toBe(204);
        else {
          expect(res.status).toBe(400);
          expect(res.json.code).toBe(answer);
        }

        // Whatever reached each socket after the action, before a marker sent after it.
        const [gotA, gotB] = await Promise.all([settle(a), settle(b)]);
        for (const [got, other] of [
          [gotA, b],
          [gotB, a],
        ] as const)
          for (const d of got) {
            expect(d.d, `${d.t} is about the other user`).toMatchObject({ id: other.id });
            if (d.t === 'RELATIONSHIP_ADD') expect(d.d.user).toMatchObject({ id: other.id, username: other.username });
            else expect(Object.keys(d.d).sort(), `${d.t} is a partial relationship`).toEqual(PARTIAL_KEYS);
          }
        expect(gotA.map(eventSig)).toEqual(eventsA);
        expect(gotB.map(eventSig)).toEqual(eventsB);

        const [listA, listB] = await Promise.all([relationships(a), relationships(b)]);
        expect(rowSig(listA.find((r) => r.id === b.id))).toBe(rowA);
        expect(rowSig(listB.find((r) => r.id === a.id))).toBe(rowB);
        expect(listA.length).toBe(rowA === '-' ? 0 : 1);
        expect(listB.length).toBe(rowB === '-' ? 0 : 1);
        for (const [list, other] of [
          [listA, b],
          [listB, a],
        ] as const)
          for (const r of list) expect(r.user).toMatchObject({ id: other.id, username: other.username });
      } finally {
        a.ws.close();
        b.ws.close();
      }
    },
  );
});
