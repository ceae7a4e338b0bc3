import { describe, expect, it } from 'vitest';
import { createLogger, type EventEnvelope } from '@kith/platform';
import { GatewayConnection, type Transport } from './connection.js';
import { Delivery } from './delivery.js';
import type { ClaimRequest, ClaimResult, NewSession, SessionAppend, SessionStorePort, StreamPosition } from './ports.js';

/** Records what was sent and how the connection closed. */
class FakeTransport implements Transport {
  readonly sent: { s: number | null; t: string | null }[] = [];
  closedWith: number | undefined;
  send(frame: string) {
    this.sendFrame(frame);
    this.sent.push(JSON.parse(frame));
  }
  close(code: number) {
    this.closedWith = code;
  }
  compressEachFrame() {}
  /** The frames of each `together` call, as one group. */
  readonly groups: string[][] = [];
  private group: string[] | undefined;
  together(fn: () => void) {
    this.group = [];
    fn();
    this.groups.push(this.group.map((f) => JSON.parse(f).t));
    this.group = undefined;
  }
  sendFrame(frame: string) {
    this.group?.push(frame);
  }
}

/** Sessions in memory, with the owner check of the real store; `failNext` makes the next append throw. */
class FakeStore implements SessionStorePort {
  readonly sessions = new Map<string, NewSession & { seq: number; frames: string[] }>();
  readonly log: string[] = [];
  failNext = false;
  /** A session whose writes fail (the others of the same round trip go through). */
  failSession: string | undefined;
  /** How many sessions each round trip wrote. */
  readonly appendCalls: number[] = [];
  async create(id: string, session: NewSession, frame: string) {
    this.sessions.set(id, { ...session, seq: 1, frames: [frame] });
  }
  async append(writes: SessionAppend[]) {
    this.appendCalls.push(writes.length);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('store down');
    }
    return writes.map(({ sessionId, owner, frames }) => {
      if (this.failSession === sessionId) return new Error('store down');
      const s = this.sessions.get(sessionId);
      if (!s || s.owner !== owner) return false;
      for (const { seq, streamSeq, frame, membership } of frames) {
        this.log.push(`append ${seq}`);
        Object.assign(s, { seq, streamSeq: Math.max(s.streamSeq, streamSeq) });
        s.frames.push(frame);
        if (membership?.op === 'add') s.guildIds = [...new Set([...s.guildIds, membership.guildId])];
        if (membership?.op === 'remove') s.guildIds = s.guildIds.filter((id) => id !== membership.guildId);
      }
      return true;
    });
  }
  async touch(id: string, owner: string, streamSeq: number) {
    const s = this.sessions.get(id);
    if (!s || s.owner !== owner) return false;
    this.log.push(`touch ${streamSeq}`);
    s.streamSeq = Math.max(s.streamSeq, streamSeq);
    return true;
  }
  async claim(_id: string, _request: ClaimRequest): Promise<ClaimResult> {
    return { status: 'missing' };
  }

  async end(id: string) {
    this.log.push('end');
    this.sessions.delete(id);
  }
}

const guildEvent = (name: string, guilds: string[], data: unknown = { name }, users: string[] = []): EventEnvelope => ({
  id: name,
  service: 'test',
  name,
  occurred_at: '2026-01-01T00:00:00.000Z',
  audience: { users, guilds },
  data,
});

const event = (name: string, users: string[], internal?: EventEnvelope['internal']): EventEnvelope => ({
  id: name,
  service: 'test',
  name,
  occurred_at: '2026-01-01T00:00:00.000Z',
  audience: { users },
  data: { name },
  ...(internal ? { internal } : {}),
});

function setup(processed = 0) {
  const store = new FakeStore();
  const position: StreamPosition = { current: () => processed, processed: () => processed };
  const delivery = new Delivery(store, position, createLogger('test', 'silent'));
  let n = 0;
  /** A connection of `userId` identified at stream position `at`, live unless `catchingUp`. */
  async function connect(userId: string, at = 0, catchingUp = false, guildIds: string[] = []) {
    const transport = new FakeTransport();
    const conn = new GatewayConnection(`c${++n}`, transport, '127.0.0.1', 9, 0);
    const session = { id: `s${n}`, userId, authSessionId: `auth-${n}`, authSessionIdHash: `hash-${n}` };
    delivery.attach(conn, session, guildIds);
    delivery.own(conn);
    await store.create(session.id, { ...session, owner: conn.id, streamSeq: at, guildIds }, '{}');
    Object.assign(conn, { seq: 1, streamSeq: at, phase: 'ready' });
    if (!catchingUp) await delivery.drain(conn);
    return { conn, transport, session };
  }
  return { store, delivery, connect, setProcessed: (p: number) => (processed = p) };
}

describe('Delivery', () => {
  it('when events reach a live connection, then each is recorded, then sent with the next s', async () => {
    const { store, delivery, connect } = setup();
    const { transport } = await connect('u1');
    await delivery.deliver([{ event: event('A', ['u1']), streamSeq: 5 }]);
    await delivery.deliver([{ event: event('B', ['u1', 'u2']), streamSeq: 6 }]);
    expect(transport.sent).toEqual([
      { op: 0, t: 'A', s: 2, d: { name: 'A' } },
      { op: 0, t: 'B', s: 3, d: { name: 'B' } },
    ]);
    expect(store.sessions.get('s1')).toMatchObject({ seq: 3, streamSeq: 6 });
  });

  it('when a run of events reaches a connection, then its frames are handed to the socket together, in order; a single frame alone', async () => {
    const { delivery, connect } = setup();
    const { transport } = await connect('u1');
    await delivery.deliver([
      { event: event('A', ['u1']), streamSeq: 5 },
      { event: event('B', ['u1']), streamSeq: 6 },
      { event: event('C', ['u1']), streamSeq: 7 },
    ]);
    await delivery.deliver([{ event: event('D', ['u1']), streamSeq: 8 }]);
    expect(transport.groups).toEqual([['A', 'B', 'C']]);
    expect(transport.sent.map((f) => [f.t, f.s])).toEqual([
      ['A', 2],
      ['B', 3],
      ['C', 4],
      ['D', 5],
    ]);
  });

  it('when an event names one gateway session (a reply to its op 8), then only that session gets it, numbered in turn', async () => {
    const { delivery, connect } = setup();
    const asking = await connect('u1');
    const other = await connect('u1');
    await delivery.deliver([{ event: event('GUILD_MEMBERS_CHUNK', ['u1'], { gateway_session_id: asking.session.id }), streamSeq: 5 }]);
    await delivery.deliver([{ event: event('NEXT', ['u1']), streamSeq: 6 }]);
    expect(asking.transport.sent.map((f) => [f.t, f.s])).toEqual([
      ['GUILD_MEMBERS_CHUNK', 2],
      ['NEXT', 3],
    ]);
    expect(other.transport.sent.map((f) => [f.t, f.s])).toEqual([['NEXT', 2]]);
  });

  it('when the same stream event is delivered again (a redelivery), then it is not sent twice', async () => {
    const { delivery, connect } = setup();
    const { transport } = await connect('u1');
    await delivery.deliver([{ event: event('A', ['u1']), streamSeq: 5 }]);
    await delivery.deliver([{ event: event('A', ['u1']), streamSeq: 5 }]);
    await delivery.deliver([{ event: event('OLD', ['u1']), streamSeq: 4 }]);
    expect(transport.sent.map((f) => f.t)).toEqual(['A']);
  });

  it('when a connection is catching up, then live events wait and are sent after, skipping what the catch-up covered', async () => {
    const { delivery, connect } = setup();
    const { conn, transport } = await connect('u1', 10, true);
    await delivery.deliver([{ event: event('COVERED', ['u1']), streamSeq: 11 }]);
    await delivery.deliver([{ event: event('AFTER', ['u1']), streamSeq: 13 }]);
    expect(transport.sent).toEqual([]);
    // The catch-up (a replay) sent events up to 12.
    conn.streamSeq = 12;
    await delivery.drain(conn);
    await delivery.deliver([{ event: event('LIVE', ['u1']), streamSeq: 14 }]);
    expect(transport.sent.map((f) => [f.t, f.s])).toEqual([
      ['AFTER', 2],
      ['LIVE', 3],
    ]);
  });

  it('when the session was resumed on another connection, then this one closes with 1000 and sends nothing', async () => {
    const { store, delivery, connect } = setup();
    const { transport, session } = await connect('u1');
    store.sessions.get(session.id)!.owner = 'elsewhere';
    await delivery.deliver([{ event: event('A', ['u1']), streamSeq: 5 }]);
    expect(transport.sent).toEqual([]);
    expect(transport.closedWith).toBe(1000);
  });

  it('when an event revokes the connection’s auth session, then it closes with 4004, the session ends, and the user’s other sockets get nothing', async () => {
    const { store, delivery, connect } = setup();
    const revoked = await connect('u1');
    const other = await connect('u1');
    await delivery.deliver([{ event: event('AUTH_SESSION_CHANGE', ['u1'], { revoked_session_ids: ['auth-1'] }), streamSeq: 5 }]);
    expect(revoked.transport.closedWith).toBe(4004);
    expect(revoked.transport.sent).toEqual([]);
    expect(store.sessions.has('s1')).toBe(false);
    expect(store.log).not.toContain('touch 5');
    expect(other.transport.sent).toEqual([]);
    expect(other.transport.closedWith).toBeUndefined();
  });

  it('when an event moves the connection’s auth session to a new one, then it stays open, is told the new hash, and answers to the new session from then on', async () => {
    const { store, delivery, connect } = setup();
    const changing = await connect('u1');
    const ended = await connect('u1');
    const moved = { id: 'auth-new', id_hash: 'hash-new' };
    const change = {
      ...event('AUTH_SESSION_CHANGE', ['u1'], { revoked_session_ids: ['auth-1'], moved_to_session: moved }),
      data: { auth_session_id_hash: 'hash-new' },
    };
    await delivery.deliver([
      { event: change, streamSeq: 5 },
      { event: event('AUTH_SESSION_CHANGE', ['u1'], { revoked_session_ids: ['auth-2'] }), streamSeq: 6 },
      { event: event('AFTER', ['u1']), streamSeq: 7 },
    ]);
    expect(changing.transport.closedWith).toBeUndefined();
    expect(changing.transport.sent).toEqual([
      { op: 0, t: 'AUTH_SESSION_CHANGE', s: 2, d: { auth_session_id_hash: 'hash-new' } },
      { op: 0, t: 'AFTER', s: 3, d: { name: 'AFTER' } },
    ]);
    expect(changing.conn.session).toMatchObject({ authSessionId: 'auth-new', authSessionIdHash: 'hash-new' });
    expect(store.sessions.get('s1')).toMatchObject({ seq: 3, streamSeq: 7 });
    expect(ended.transport.closedWith).toBe(4004);

    // The old session's revocation no longer concerns it; the new one's does.
    await delivery.deliver([{ event: event('AUTH_SESSION_CHANGE', ['u1'], { revoked_session_ids: ['auth-1'] }), streamSeq: 8 }]);
    expect(changing.transport.closedWith).toBeUndefined();
    await delivery.deliver([{ event: event('AUTH_SESSION_CHANGE', ['u1'], { revoked_session_ids: ['auth-new'] }), streamSeq: 9 }]);
    expect(changing.transport.closedWith).toBe(4004);
  });

  it('when the store fails while a session moves, then the retry moves it and tells it once', async () => {
    const { store, delivery, connect } = setup();
    const changing = await connect('u1');
    const change = event('AUTH_SESSION_CHANGE', ['u1'], {
      revoked_session_ids: ['auth-1'],
      moved_to_session: { id: 'auth-new', id_hash: 'h' },
    });
    store.failNext = true;
    await expect(delivery.deliver([{ event: change, streamSeq: 5 }])).rejects.toThrow('store down');
    expect(changing.conn.session?.authSessionId).toBe('auth-1');
    await delivery.deliver([{ event: change, streamSeq: 5 }]);
    expect(changing.transport.sent.map((f) => [f.t, f.s])).toEqual([['AUTH_SESSION_CHANGE', 2]]);
    expect(changing.conn.session?.authSessionId).toBe('auth-new');
  });

  it('when the store fails, then delivery throws, and the retry sends the event once', async () => {
    const { store, delivery, connect } = setup();
    const a = await connect('u1');
    const b = await connect('u1');
    store.failNext = true;
    await expect(delivery.deliver([{ event: event('A', ['u1']), streamSeq: 5 }])).rejects.toThrow('store down');
    await delivery.deliver([{ event: event('A', ['u1']), streamSeq: 5 }]);
    expect(a.transport.sent.map((f) => f.s)).toEqual([2]);
    expect(b.transport.sent.map((f) => f.s)).toEqual([2]);
  });

  it('when a live connection is released, then its session records the stream position processed so far', async () => {
    const { store, delivery, connect, setProcessed } = setup();
    const { conn } = await connect('u1', 3);
    setProcessed(9);
    delivery.release(conn, 4009);
    await delivery.settled();
    expect(store.sessions.get('s1')!.streamSeq).toBe(9);
    expect(delivery.size).toBe(0);
  });

  it('when a connection still catching up is released, then only what it was sent counts', async () => {
    const { store, delivery, connect, setProcessed } = setup();
    const { conn } = await connect('u1', 3, true);
    setProcessed(9);
    delivery.release(conn, 1000);
    await delivery.settled();
    expect(store.sessions.get('s1')!.streamSeq).toBe(3);
  });

  describe('a batch of events', () => {
    const at = (streamSeq: number, e: EventEnvelope) => ({ event: e, streamSeq });

    it('when two events for one session come in one batch, then both are recorded in one round trip, in order, then sent in order', async () => {
      const { store, delivery, connect } = setup();
      const { transport } = await connect('u1');
      await delivery.deliver([at(5, event('A', ['u1'])), at(6, event('B', ['u1']))]);
      expect(store.appendCalls).toEqual([1]);
      expect(store.log).toEqual(['append 2', 'append 3']);
      expect(store.sessions.get('s1')).toMatchObject({ seq: 3, streamSeq: 6 });
      expect(transport.sent.map((f) => [f.t, f.s])).toEqual([
        ['A', 2],
        ['B', 3],
      ]);
    });

    it('when a batch has events for several sessions, then all of them are written in one round trip', async () => {
      const { store, delivery, connect } = setup();
      const a = await connect('u1');
      const b = await connect('u2');
      await delivery.deliver([at(5, event('A', ['u1'])), at(6, event('B', ['u2'])), at(7, event('C', ['u1', 'u2']))]);
      expect(store.appendCalls).toEqual([2]);
      expect(a.transport.sent.map((f) => [f.t, f.s])).toEqual([
        ['A', 2],
        ['C', 3],
      ]);
      expect(b.transport.sent.map((f) => [f.t, f.s])).toEqual([
        ['B', 2],
        ['C', 3],
      ]);
    });

    it('when one session’s write fails, then the others are sent, and the retried batch sends the rest once', async () => {
      const { store, delivery, connect } = setup();
      const a = await connect('u1');
      const b = await connect('u2');
      store.failSession = b.session.id;
      const batch = [at(5, event('A', ['u1', 'u2'])), at(6, event('B', ['u1', 'u2']))];
      await expect(delivery.deliver(batch)).rejects.toThrow('store down');
      expect(a.transport.sent.map((f) => f.s)).toEqual([2, 3]);
      expect(b.transport.sent).toEqual([]);
      store.failSession = undefined;
      await delivery.deliver(batch);
      expect(a.transport.sent.map((f) => [f.t, f.s])).toEqual([
        ['A', 2],
        ['B', 3],
      ]);
      expect(b.transport.sent.map((f) => [f.t, f.s])).toEqual([
        ['A', 2],
        ['B', 3],
      ]);
      expect(store.sessions.get(b.session.id)).toMatchObject({ seq: 3, streamSeq: 6 });
    });

    it('when a batch joins a guild and then carries the guild’s event, then the event reaches the new member', async () => {
      const { delivery, connect } = setup();
      const { transport } = await connect('u1');
      await delivery.deliver([
        at(5, event('BEFORE', ['u1'])),
        at(6, { ...event('GUILD_CREATE', ['u1']), data: { id: 'g1' } }),
        at(7, guildEvent('IN_G1', ['g1'])),
      ]);
      expect(transport.sent.map((f) => [f.t, f.s])).toEqual([
        ['BEFORE', 2],
        ['GUILD_CREATE', 3],
        ['IN_G1', 4],
      ]);
    });

    it('when a batch revokes a session after an event for it, then the event is sent before the socket closes with 4004', async () => {
      const { store, delivery, connect } = setup();
      const { transport } = await connect('u1');
      await delivery.deliver([
        at(5, event('FIRST', ['u1'])),
        at(6, event('AUTH_SESSION_CHANGE', ['u1'], { revoked_session_ids: ['auth-1'] })),
      ]);
      expect(transport.sent.map((f) => f.t)).toEqual(['FIRST']);
      expect(transport.closedWith).toBe(4004);
      expect(store.sessions.has('s1')).toBe(false);
    });
  });

  describe('guild audiences', () => {
    it('when an event names a guild and users, then members’ connections and the named users get it once each, nobody else', async () => {
      const { delivery, connect } = setup();
      const member = await connect('u1', 0, false, ['g1']);
      const otherGuild = await connect('u2', 0, false, ['g2']);
      const alsoNamed = await connect('u3', 0, false, ['g1']);
      const outsider = await connect('u4');
      await delivery.deliver([{ event: guildEvent('GUILD_UPDATE', ['g1'], { id: 'g1' }, ['u3', 'u4']), streamSeq: 5 }]);
      expect(member.transport.sent.map((f) => f.t)).toEqual(['GUILD_UPDATE']);
      expect(alsoNamed.transport.sent.map((f) => f.t)).toEqual(['GUILD_UPDATE']);
      expect(outsider.transport.sent.map((f) => f.t)).toEqual(['GUILD_UPDATE']);
      expect(otherGuild.transport.sent).toEqual([]);
    });

    it('when GUILD_CREATE (with the guild id) then GUILD_DELETE reach a user, then the guild’s events come in between only', async () => {
      const { store, delivery, connect } = setup();
      const { transport, session } = await connect('u1');
      const joined: EventEnvelope = { ...event('GUILD_CREATE', ['u1']), data: { id: 'g1', name: 'g' } };
      await delivery.deliver([{ event: joined, streamSeq: 5 }]);
      expect(store.sessions.get(session.id)!.guildIds).toEqual(['g1']);
      await delivery.deliver([{ event: guildEvent('MESSAGE_A', ['g1']), streamSeq: 6 }]);
      await delivery.deliver([{ event: { ...event('GUILD_DELETE', ['u1']), data: { id: 'g1' } }, streamSeq: 7 }]);
      await delivery.deliver([{ event: guildEvent('MESSAGE_B', ['g1']), streamSeq: 8 }]);
      expect(transport.sent.map((f) => f.t)).toEqual(['GUILD_CREATE', 'MESSAGE_A', 'GUILD_DELETE']);
      expect(store.sessions.get(session.id)!.guildIds).toEqual([]);
    });

    it('when the guild itself is deleted, then every member gets GUILD_DELETE and nothing of the guild after', async () => {
      const { delivery, connect } = setup();
      const a = await connect('u1', 0, false, ['g1']);
      const b = await connect('u2', 0, false, ['g1', 'g2']);
      await delivery.deliver([{ event: guildEvent('GUILD_DELETE', ['g1'], { id: 'g1' }), streamSeq: 5 }]);
      await delivery.deliver([{ event: guildEvent('LATER', ['g1']), streamSeq: 6 }]);
      await delivery.deliver([{ event: guildEvent('OTHER', ['g2']), streamSeq: 7 }]);
      expect(a.transport.sent.map((f) => f.t)).toEqual(['GUILD_DELETE']);
      expect(b.transport.sent.map((f) => f.t)).toEqual(['GUILD_DELETE', 'OTHER']);
    });

    it('when GUILD_DELETE says the guild is unavailable (an outage), then the member stays subscribed', async () => {
      const { delivery, connect } = setup();
      const { transport } = await connect('u1', 0, false, ['g1']);
      await delivery.deliver([{ event: guildEvent('GUILD_DELETE', ['g1'], { id: 'g1', unavailable: true }), streamSeq: 5 }]);
      await delivery.deliver([{ event: guildEvent('LATER', ['g1']), streamSeq: 6 }]);
      expect(transport.sent.map((f) => f.t)).toEqual(['GUILD_DELETE', 'LATER']);
    });

    it('when a connection catching up joins a guild, then the guild’s events queued behind the join are sent too', async () => {
      const { delivery, connect } = setup();
      const { conn, transport } = await connect('u1', 3, true);
      await delivery.deliver([{ event: guildEvent('BEFORE', ['g1']), streamSeq: 4 }]);
      await delivery.deliver([{ event: { ...event('GUILD_CREATE', ['u1']), data: { id: 'g1' } }, streamSeq: 5 }]);
      await delivery.deliver([{ event: guildEvent('AFTER', ['g1']), streamSeq: 6 }]);
      await delivery.drain(conn);
      await delivery.deliver([{ event: guildEvent('LIVE', ['g1']), streamSeq: 7 }]);
      await delivery.deliver([{ event: guildEvent('ELSEWHERE', ['g2']), streamSeq: 8 }]);
      expect(transport.sent.map((f) => f.t)).toEqual(['GUILD_CREATE', 'AFTER', 'LIVE']);
    });

    it('when a connection is released, then guild events no longer reach it', async () => {
      const { delivery, connect } = setup();
      const { conn, transport } = await connect('u1', 0, false, ['g1']);
      delivery.release(conn, 1000);
      await delivery.deliver([{ event: guildEvent('LATER', ['g1']), streamSeq: 6 }]);
      expect(transport.sent).toEqual([]);
    });
  });

  describe('session audiences (guest access)', () => {
    const toSession = (name: string, session: { id: string; userId: string }, data: unknown): EventEnvelope => ({
      id: name,
      service: 'test',
      name,
      occurred_at: '2026-01-01T00:00:00.000Z',
      audience: { sessions: [{ id: session.id, user_id: session.userId }] },
      data,
    });

    it('when GUILD_CREATE names one session, then only that connection gets it, and the guild’s events never reach it', async () => {
      const { store, delivery, connect } = setup();
      const guest = await connect('u1');
      const sameUser = await connect('u1');
      const member = await connect('u2', 0, false, ['g1']);
      await delivery.deliver([{ event: toSession('GUILD_CREATE', guest.session, { id: 'g1' }), streamSeq: 5 }]);
      await delivery.deliver([{ event: guildEvent('MESSAGE_CREATE', ['g1']), streamSeq: 6 }]);
      await delivery.deliver([{ event: guildEvent('CHANNEL_UPDATE', ['g1']), streamSeq: 7 }]);
      expect(guest.transport.sent.map((f) => f.t)).toEqual(['GUILD_CREATE']);
      expect(guest.conn.guestGuilds).toEqual(new Set(['g1']));
      expect(guest.conn.guilds).toEqual(new Set());
      expect(store.sessions.get(guest.session.id)!.guildIds).toEqual([]);
      expect(sameUser.transport.sent).toEqual([]);
      expect(member.transport.sent.map((f) => f.t)).toEqual(['MESSAGE_CREATE', 'CHANNEL_UPDATE']);
    });

    it('when a session id is named with another user, then nobody gets the event', async () => {
      const { delivery, connect } = setup();
      const guest = await connect('u1');
      await delivery.deliver([{ event: toSession('GUILD_CREATE', { id: guest.session.id, userId: 'u9' }, { id: 'g1' }), streamSeq: 5 }]);
      expect(guest.transport.sent).toEqual([]);
    });

    it('when the guest’s GUILD_DELETE comes, then the connection holds no guest access any more', async () => {
      const { delivery, connect } = setup();
      const guest = await connect('u1');
      await delivery.deliver([{ event: toSession('GUILD_CREATE', guest.session, { id: 'g1' }), streamSeq: 5 }]);
      await delivery.deliver([{ event: toSession('GUILD_DELETE', guest.session, { id: 'g1' }), streamSeq: 6 }]);
      expect(guest.transport.sent.map((f) => f.t)).toEqual(['GUILD_CREATE', 'GUILD_DELETE']);
      expect(guest.conn.guestGuilds.size).toBe(0);
    });

    it('when a connection catching up is named, then the event waits and is sent once it catches up', async () => {
      const { delivery, connect } = setup();
      const guest = await connect('u1', 3, true);
      await delivery.deliver([{ event: toSession('GUILD_CREATE', guest.session, { id: 'g1' }), streamSeq: 5 }]);
      expect(guest.transport.sent).toEqual([]);
      await delivery.drain(guest.conn);
      expect(guest.transport.sent.map((f) => f.t)).toEqual(['GUILD_CREATE']);
    });
  });
});
