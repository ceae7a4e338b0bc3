import { describe, expect, it } from 'vitest';
import type { DomainEvent } from '@kith/platform';
import type { GuildDirectory, RelationshipStore, RelationshipTx, UserDirectory } from './ports.js';
import { RelationshipType as T, type FriendSourceFlags, type PartialUser, type RelationshipRow } from './relationship.types.js';
import { RelationshipsService } from './relationships.service.js';
import { contractUser as partialUser, errorCodeOf } from '@kith/platform/testing';

/** An in-memory store whose transactions apply all-or-nothing, like the real one. */
class MemoryStore implements RelationshipStore {
  rows = new Map<string, RelationshipRow>();
  events: DomainEvent[] = [];

  async list(userId: string) {
    return [...this.rows.values()].filter((r) => r.user_id === userId);
  }

  async listVersion() {
    return '0';
  }

  async withUsersLocked<R>(_ids: string[], fn: (tx: RelationshipTx) => Promise<R>): Promise<R> {
    const rows = new Map(this.rows);
    const events: DomainEvent[] = [];
    const tx: RelationshipTx = {
      get: async (u, t) => rows.get(`${u}:${t}`),
      getPair: async (a, b) => [rows.get(`${a}:${b}`), rows.get(`${b}:${a}`)],
      put: async (...put) => put.forEach((row) => rows.set(`${row.user_id}:${row.target_id}`, { ...row })),
      delete: async (u, t) => void rows.delete(`${u}:${t}`),
      pairState: async (a, b, options) => {
        const friendsOf = (u: string) =>
          new Set([...rows.values()].filter((r) => r.user_id === u && r.type === T.FRIEND).map((r) => r.target_id));
        const [fa, fb] = [friendsOf(a), friendsOf(b)];
        return {
          mine: rows.get(`${a}:${b}`),
          theirs: rows.get(`${b}:${a}`),
          friendCounts: [fa.size, fb.size],
          mutualFriends: options.mutualFriends ? [...fa].filter((x) => fb.has(x)).length : 0,
          // As the store counts them: only requests sent at or after the given time.
          outgoingSince: options.outgoingSince
            ? [...rows.values()].filter((r) => r.user_id === a && r.type === T.OUTGOING_REQUEST && r.since >= options.outgoingSince!).length
            : 0,
        };
      },
      emit: async (e) => void events.push(e),
    };
    const result = await fn(tx);
    this.rows = rows;
    this.events.push(...events);
    return result;
  }

  type(u: string, t: string): number | undefined {
    return this.rows.get(`${u}:${t}`)?.type;
  }

  eventsFor(userId: string): string[] {
    return this.events.filter((e) => e.audience.users?.includes(userId)).map((e) => `${e.name}:${(e.data as { type: number }).type}`);
  }
}

// Old-enough snowflakes so the spam rule (new accounts only) stays out of the way.
const A = '100000000000000001';
const B = '100000000000000002';
const C = '100000000000000003';
const user = (id: string, extra: Partial<PartialUser> = {}): PartialUser => ({ ...partialUser(id, `user${id.slice(-1)}`), ...extra });

/** Which pairs share a guild (of `members` members), as the guilds service would answer; every question is counted. */
function guildsWith(shared: [string, string][], members = 5000) {
  const asked: string[] = [];
  const guilds: GuildDirectory = {
    mutualGuilds: async (a, b) => {
      asked.push(`${a}:${b}`);
      const shares = shared.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
      return shares ? [{ id: '900', memberCount: members }] : [];
    },
  };
  return { guilds, asked };
}

function setup(flags: Partial<FriendSourceFlags> = {}, guilds: GuildDirectory | null = null) {
  const store = new MemoryStore();
  const people = new Map([A, B, C].map((id) => [id, user(id)]));
  const directory: UserDirectory = {
    getUsers: async (ids) => new Map(ids.filter((id) => people.has(id)).map((id) => [id, people.get(id)!])),
    findByUsername: async (name) => [...people.values()].find((p) => p.username === name),
    friendSourceFlags: async () => ({ all: true, mutual_friends: true, mutual_guilds: true, ...flags }),
  };
  return { store, people, service: new RelationshipsService(store, directory, guilds) };
}

const code = errorCodeOf;

type Start = 'none' | 'outgoing' | 'incoming' | 'friends' | 'a-blocks' | 'b-blocks' | 'a-ignores' | 'b-ignores';

/** Puts the pair in a starting state through the service itself. */
async function arrange(s: ReturnType<typeof setup>, start: Start) {
  const { service } = s;
  if (start === 'outgoing') await service.requestOrAcceptById(A, B, {});
  if (start === 'incoming') await service.requestOrAcceptById(B, A, {});
  if (start === 'friends') {
    await service.requestOrAcceptById(A, B, {});
    await service.requestOrAcceptById(B, A, {});
  }
  if (start === 'a-blocks') await service.block(A, B);
  if (start === 'b-blocks') await service.block(B, A);
  if (start === 'a-ignores') await service.ignore(A, B);
  if (start === 'b-ignores') await service.ignore(B, A);
  s.store.events = [];
}

type Action = 'request' | 'accept' | 'block' | 'remove' | 'ignore' | 'unignore' | 'nickname';
const act = (s: ReturnType<typeof setup>, action: Action) =>
  ({
    request: () => s.service.requestOrAcceptById(A, B, { confirmStranger: true }),
    accept: () => s.service.acceptById(A, B, { confirmStranger: true }),
    block: () => s.service.block(A, B),
    remove: () => s.service.remove(A, B),
    ignore: () => s.service.ignore(A, B),
    unignore: () => s.service.unignore(A, B),
    nickname: () => s.service.setNickname(A, B, 'bestie'),
  })[action]();

// start × action → the answer, A's and B's row types afterwards, and the events each receives.
const TABLE: [Start, Action, number | 'ok', number | undefined, number | undefined, string[], string[]][] = [
  ['none', 'request', 'ok', T.OUTGOING_REQUEST, T.INCOMING_REQUEST, ['RELATIONSHIP_ADD:4'], ['RELATIONSHIP_ADD:3']],
  ['none', 'accept', 80005, undefined, undefined, [], []],
  ['none', 'block', 'ok', T.BLOCKED, undefined, ['RELATIONSHIP_ADD:2'], []],
  ['none', 'remove', 'ok', undefined, undefined, [], []],
  ['none', 'ignore', 'ok', T.NONE, undefined, ['RELATIONSHIP_ADD:0'], []],
  ['none', 'unignore', 'ok', undefined, undefined, [], []],
  ['none', 'nickname', 80006, undefined, undefined, [], []],
  ['outgoing', 'request', 'ok', T.OUTGOING_REQUEST, T.INCOMING_REQUEST, [], []],
  ['outgoing', 'accept', 80005, T.OUTGOING_REQUEST, T.INCOMING_REQUEST, [], []],
  ['outgoing', 'block', 'ok', T.BLOCKED, undefined, ['RELATIONSHIP_ADD:2'], ['RELATIONSHIP_REMOVE:3']],
  ['outgoing', 'remove', 'ok', undefined, undefined, ['RELATIONSHIP_REMOVE:4'], ['RELATIONSHIP_REMOVE:3']],
  ['outgoing', 'nickname', 80006, T.OUTGOING_REQUEST, T.INCOMING_REQUEST, [], []],
  ['incoming', 'request', 'ok', T.FRIEND, T.FRIEND, ['RELATIONSHIP_ADD:1'], ['RELATIONSHIP_ADD:1']],
  ['incoming', 'accept', 'ok', T.FRIEND, T.FRIEND, ['RELATIONSHIP_ADD:1'], ['RELATIONSHIP_ADD:1']],
  ['incoming', 'block', 'ok', T.BLOCKED, undefined, ['RELATIONSHIP_ADD:2'], ['RELATIONSHIP_REMOVE:4']],
  ['incoming', 'remove', 'ok', undefined, undefined, ['RELATIONSHIP_REMOVE:3'], ['RELATIONSHIP_REMOVE:4']],
  ['friends', 'request', 80007, T.FRIEND, T.FRIEND, [], []],
  ['friends', 'accept', 80005, T.FRIEND, T.FRIEND, [], []],
  ['friends', 'block', 'ok', T.BLOCKED, undefined, ['RELATIONSHIP_ADD:2'], ['RELATIONSHIP_REMOVE:1']],
  ['friends', 'remove', 'ok', undefined, undefined, ['RELATIONSHIP_REMOVE:1'], ['RELATIONSHIP_REMOVE:1']],
  ['friends', 'ignore', 'ok', T.FRIEND, T.FRIEND, ['RELATIONSHIP_UPDATE:1'], []],
  ['friends', 'nickname', 'ok', T.FRIEND, T.FRIEND, ['RELATIONSHIP_UPDATE:1'], []],
  ['a-blocks', 'request', 80001, T.BLOCKED, undefined, [], []],
  ['a-blocks', 'block', 'ok', T.BLOCKED, undefined, [], []],
  ['a-blocks', 'remove', 'ok', undefined, undefined, ['RELATIONSHIP_REMOVE:2'], []],
  ['b-blocks', 'request', 80001, undefined, T.BLOCKED, [], []],
  ['b-blocks', 'block', 'ok', T.BLOCKED, T.BLOCKED, ['RELATIONSHIP_ADD:2'], []],
  ['b-blocks', 'remove', 'ok', undefined, T.BLOCKED, [], []],
  ['a-ignores', 'request', 'ok', T.OUTGOING_REQUEST, T.INCOMING_REQUEST, ['RELATIONSHIP_ADD:4'], ['RELATIONSHIP_ADD:3']],
  ['a-ignores', 'ignore', 'ok', T.NONE, undefined, [], []],
  ['a-ignores', 'unignore', 'ok', undefined, undefined, ['RELATIONSHIP_REMOVE:0'], []],
  ['a-ignores', 'remove', 'ok', undefined, undefined, ['RELATIONSHIP_REMOVE:0'], []],
  // B's ignore is B's own: A's block neither removes it nor tells B anything.
  ['b-ignores', 'block', 'ok', T.BLOCKED, T.NONE, ['RELATIONSHIP_ADD:2'], []],
];

describe('relationship state machine', () => {
  it.each(TABLE)(
    'when the pair is %s and A does %s, then %s with rows %s/%s',
    async (start, action, answer, rowA, rowB, eventsA, eventsB) => {
      const s = setup();
      await arrange(s, start);
      expect(await code(act(s, action))).toBe(answer);
      expect(s.store.type(A, B)).toBe(rowA);
      expect(s.store.type(B, A)).toBe(rowB);
      expect(s.store.eventsFor(A)).toEqual(eventsA);
      expect(s.store.eventsFor(B)).toEqual(eventsB);
    },
  );

  it('when A asks themselves, then 80003', async () => {
    expect(await code(setup().service.requestOrAcceptById(A, A, {}))).toBe(80003);
  });

  it('when the target does not exist, then 10013', async () => {
    expect(await code(setup().service.requestOrAcceptById(A, '999999999999999999', {}))).toBe(10013);
  });

  it('when the username does not exist, then 80004', async () => {
    expect(await code(setup().service.sendByUsername(A, 'nobody', null))).toBe(80004);
  });

  it('when the target is a bot, then 80002', async () => {
    const s = setup();
    s.people.set(B, user(B, { bot: true }));
    expect(await code(s.service.requestOrAcceptById(A, B, {}))).toBe(80002);
  });

  it('when the target accepts only mutual guilds and they share one, then the request goes through', async () => {
    const s = setup({ all: false, mutual_friends: false, mutual_guilds: true }, guildsWith([[A, B]]).guilds);
    expect(await code(s.service.requestOrAcceptById(A, B, {}))).toBe('ok');
    expect(s.store.type(B, A)).toBe(T.INCOMING_REQUEST);
  });

  it('when the target accepts only mutual guilds and they share none (or guilds cannot say), then 80000', async () => {
    const s = setup({ all: false, mutual_friends: false, mutual_guilds: true }, guildsWith([[A, C]]).guilds);
    expect(await code(s.service.requestOrAcceptById(A, B, {}))).toBe(80000);
    expect(s.store.type(B, A)).toBeUndefined();
  });

  it('when they share only a large guild and no friend, then the request is a stranger request; guilds are asked once', async () => {
    const { guilds, asked } = guildsWith([[A, B]], 201);
    const s = setup({ all: true }, guilds);
    expect(await code(s.service.requestOrAcceptById(A, B, {}))).toBe('ok');
    expect(s.store.rows.get(`${B}:${A}`)?.stranger_request).toBe(true);
    expect(asked).toEqual([`${A}:${B}`]);
  });

  it('when they share a small guild, then the request is no stranger request', async () => {
    const s = setup({ all: true }, guildsWith([[A, B]], 200).guilds);
    expect(await code(s.service.requestOrAcceptById(A, B, {}))).toBe('ok');
    expect(s.store.rows.get(`${B}:${A}`)?.stranger_request).toBe(false);
  });

  it('when the target accepts requests only from mutual friends and there are none, then 80000', async () => {
    const s = setup({ all: false, mutual_friends: true, mutual_guilds: false });
    expect(await code(s.service.requestOrAcceptById(A, B, {}))).toBe(80000);
  });

  it('when the target accepts mutual friends and they share one, then the request goes through and is no stranger request', async () => {
    const s = setup({ all: false, mutual_friends: true, mutual_guilds: false });
    for (const [x, y] of [
      [A, C],
      [C, A],
      [B, C],
      [C, B],
    ] as const) {
      // C is everyone's friend; with all=false C's own requests need a mutual friend too, so seed rows.
      s.store.rows.set(`${x}:${y}`, {
        user_id: x,
        target_id: y,
        type: T.FRIEND,
        nickname: null,
        is_spam_request: false,
        stranger_request: false,
        user_ignored: false,
        origin_application_id: null,
        since: new Date(),
      });
    }
    expect(await code(s.service.requestOrAcceptById(A, B, {}))).toBe('ok');
    expect(s.store.rows.get(`${B}:${A}`)?.stranger_request).toBe(false);
  });

  it('when a stranger request is accepted without confirm_stranger_request, then 80013 and nothing changes', async () => {
    const s = setup();
    await s.service.requestOrAcceptById(B, A, {});
    expect(s.store.rows.get(`${A}:${B}`)?.stranger_request).toBe(true);
    expect(await code(s.service.requestOrAcceptById(A, B, { confirmStranger: false }))).toBe(80013);
    expect(s.store.type(A, B)).toBe(T.INCOMING_REQUEST);
    expect(await code(s.service.requestOrAcceptById(A, B, { confirmStranger: true }))).toBe('ok');
  });

  it('when either side already has 1,000 friends, then 30002', async () => {
    const s = setup();
    for (let i = 0; i < 1000; i++) {
      const other = String(200000000000000000n + BigInt(i));
      s.store.rows.set(`${B}:${other}`, {
        user_id: B,
        target_id: other,
        type: T.FRIEND,
        nickname: null,
        is_spam_request: false,
        stranger_request: false,
        user_ignored: false,
        origin_application_id: null,
        since: new Date(),
      });
    }
    expect(await code(s.service.requestOrAcceptById(A, B, {}))).toBe(30002);
  });

  it('when A unfriends B while ignoring them, then the ignore survives as a NONE row', async () => {
    const s = setup();
    await arrange(s, 'friends');
    await s.service.ignore(A, B);
    await s.service.remove(A, B);
    expect(s.store.rows.get(`${A}:${B}`)).toMatchObject({ type: T.NONE, user_ignored: true });
    expect(s.store.eventsFor(A)).toEqual(['RELATIONSHIP_UPDATE:1', 'RELATIONSHIP_REMOVE:1', 'RELATIONSHIP_ADD:0']);
  });

  it('when a removal shows a kept ignore row, then its user comes from the shown-users source, and auth is not asked', async () => {
    const s = setup();
    await arrange(s, 'friends');
    await s.service.ignore(A, B);
    const asked: string[][] = [];
    const cached = new Map([A, B].map((id) => [id, user(id, { globalName: `cached ${id.slice(-1)}` })]));
    const live: UserDirectory = {
      getUsers: async () => {
        throw new Error('a removal must not ask auth');
      },
      findByUsername: async () => undefined,
      friendSourceFlags: async () => ({ all: true, mutual_friends: true, mutual_guilds: true }),
    };
    const shown = {
      getUsers: async (ids: string[]) => {
        asked.push(ids);
        return new Map(ids.map((id) => [id, cached.get(id)!]));
      },
    };
    await new RelationshipsService(s.store, live, null, undefined, shown).remove(A, B);
    expect(asked).toEqual([[A, B]]);
    const kept = s.store.events.find((e) => e.name === 'RELATIONSHIP_ADD' && e.audience.users?.includes(A));
    expect(kept?.data).toMatchObject({ type: T.NONE, user: { id: B, global_name: 'cached 2' } });
  });

  it('when B was ignored by A and sends a request, then A is not notified', async () => {
    const s = setup();
    await s.service.ignore(A, B);
    await s.service.requestOrAcceptById(B, A, {});
    const add = s.store.events.find(
      (e) => e.name === 'RELATIONSHIP_ADD' && e.audience.users?.includes(A) && (e.data as { type: number }).type === 3,
    );
    expect(add?.data).toMatchObject({ should_notify: false, user_ignored: true });
  });

  /** A fresh account (made a minute ago) with `count` outgoing requests, each sent `sentAgoMs` ago. */
  function freshSender(s: ReturnType<typeof setup>, count: number, sentAgoMs: number): string {
    const fresh = String((BigInt(Date.now() - 60_000 - 1420070400000) << 22n) | 1n);
    s.people.set(fresh, user(fresh));
    for (let i = 0; i < count; i++) {
      const other = String(300000000000000000n + BigInt(i));
      s.store.rows.set(`${fresh}:${other}`, {
        user_id: fresh,
        target_id: other,
        type: T.OUTGOING_REQUEST,
        nickname: null,
        is_spam_request: false,
        stranger_request: false,
        user_ignored: false,
        origin_application_id: null,
        since: new Date(Date.now() - sentAgoMs),
      });
    }
    return fresh;
  }

  // The documented rule, with its numbers: an account younger than a day that sent 10 requests in
  // the last 24 hours has its next ones flagged.
  it('when a new account has already sent 10 requests in the last day, then its next request is flagged as spam', async () => {
    const s = setup();
    const fresh = freshSender(s, 10, 60_000);
    await s.service.requestOrAcceptById(fresh, B, {});
    expect(s.store.rows.get(`${B}:${fresh}`)?.is_spam_request).toBe(true);
    const announced = s.store.events.find((e) => e.name === 'RELATIONSHIP_ADD' && e.audience.users?.includes(B));
    expect(announced?.data).toMatchObject({ is_spam_request: true, should_notify: false });
  });

  it('when a new account has sent 9 requests in the last day, then its next request is not flagged', async () => {
    const s = setup();
    const fresh = freshSender(s, 9, 60_000);
    await s.service.requestOrAcceptById(fresh, B, {});
    expect(s.store.rows.get(`${B}:${fresh}`)?.is_spam_request).toBe(false);
  });

  it('when its 10 requests were sent more than 24 hours ago, then they do not count toward the spam flag', async () => {
    const s = setup();
    const fresh = freshSender(s, 10, 24 * 3600_000 + 60_000);
    await s.service.requestOrAcceptById(fresh, B, {});
    expect(s.store.rows.get(`${B}:${fresh}`)?.is_spam_request).toBe(false);
  });

  it('when incoming requests are removed with SPAM and IGNORED filters, then only those passing both go', async () => {
    const s = setup();
    await s.service.requestOrAcceptById(B, A, {});
    await s.service.requestOrAcceptById(C, A, {});
    await s.service.ignore(A, C);
    s.store.rows.get(`${A}:${C}`)!.is_spam_request = true;
    s.store.rows.get(`${A}:${B}`)!.is_spam_request = true;
    await s.service.removeIncoming(A, { spam: true, ignored: true });
    expect(s.store.type(A, B)).toBe(T.INCOMING_REQUEST);
    expect(s.store.rows.get(`${A}:${C}`)).toMatchObject({ type: T.NONE, user_ignored: true });
    expect(s.store.type(C, A)).toBeUndefined();
  });
});

describe('friend invites', () => {
  it('when a friend invite is accepted, then both are friends at once and each hears RELATIONSHIP_ADD, whatever the privacy settings', async () => {
    const s = setup({ all: false, mutual_friends: false, mutual_guilds: false });
    expect(await s.service.befriendByInvite(A, B)).toBe(true);
    expect([s.store.type(A, B), s.store.type(B, A)]).toEqual([T.FRIEND, T.FRIEND]);
    expect(s.store.eventsFor(A)).toEqual(['RELATIONSHIP_ADD:1']);
    expect(s.store.eventsFor(B)).toEqual(['RELATIONSHIP_ADD:1']);
    s.store.events = [];
    expect(await s.service.befriendByInvite(A, B)).toBe(false);
    expect(s.store.events).toEqual([]);
  });

  it('when a request stood between them, then the invite makes them friends too', async () => {
    const s = setup();
    await arrange(s, 'outgoing');
    expect(await s.service.befriendByInvite(A, B)).toBe(true);
    expect([s.store.type(A, B), s.store.type(B, A)]).toEqual([T.FRIEND, T.FRIEND]);
  });

  it('when either blocks the other, or it is their own invite, then 80001 and 80003 and nothing changes', async () => {
    for (const start of ['a-blocks', 'b-blocks'] as const) {
      const s = setup();
      await arrange(s, start);
      expect(await code(s.service.befriendByInvite(A, B))).toBe(80001);
      expect(s.store.events).toEqual([]);
    }
    expect(await code(setup().service.befriendByInvite(A, A))).toBe(80003);
  });
});
