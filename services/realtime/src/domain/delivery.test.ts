import { describe, expect, it } from 'vitest';
import { createLogger, type EventEnvelope } from '@kith/platform';
import { GatewayConnection, type Transport } from './connection.js';
import { Delivery } from './delivery.js';
import type { MembershipChange } from './membership.js';
import type { ClaimRequest, ClaimResult, NewSession, SessionStorePort, StreamPosition } from './ports.js';

/** Records what was sent and how the connection closed. */
class FakeTransport implements Transport {
  readonly sent: { s: number | null; t: string | null }[] = [];
  closedWith: number | undefined;
  send(frame: string) {
    this.sent.push(JSON.parse(frame));
  }
  close(code: number) {
    this.closedWith = code;
  }
  compressEachFrame() {}
}

/** Sessions in memory, with the owner check of the real store; `failNext` makes the next append throw. */
class FakeStore implements SessionStorePort {
  readonly sessions = new Map<string, NewSession & { seq: number; frames: string[] }>();
  readonly log: string[] = [];
  failNext = false;
  async create(id: string, session: NewSession, frame: string) {
    this.sessions.set(id, { ...session, seq: 1, frames: [frame] });
  }
  async append(id: string, owner: string, seq: number, streamSeq: number, frame: string, membership?: MembershipChange) {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('store down');
    }
    const s = this.sessions.get(id);
    if (!s || s.owner !== owner) return false;
    this.log.push(`append ${seq}`);
    Object.assign(s, { seq, streamSeq: Math.max(s.streamSeq, streamSeq) });
    s.frames.push(frame);
    if (membership?.op === 'add') s.guildIds = [...new Set([...s.guildIds, membership.guildId])];
    if (membership?.op === 'remove') s.guildIds = s.guildIds.filter((id) => id !== membership.guildId);
    return true;
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
    await delivery.deliver(event('A', ['u1']), 5);
    await delivery.deliver(event('B', ['u1', 'u2']), 6);
    expect(transport.sent).toEqual([
      { op: 0, t: 'A', s: 2, d: { name: 'A' } },
      { op: 0, t: 'B', s: 3, d: { name: 'B' } },
    ]);
    expect(store.sessions.get('s1')).toMatchObject({ seq: 3, streamSeq: 6 });
  });

  it('when the same stream event is delivered again (a redelivery), then it is not sent twice', async () => {
    const { delivery, connect } = setup();
    const { transport } = await connect('u1');
    await delivery.deliver(event('A', ['u1']), 5);
    await delivery.deliver(event('A', ['u1']), 5);
    await delivery.deliver(event('OLD', ['u1']), 4);
    expect(transport.sent.map((f) => f.t)).toEqual(['A']);
  });

  it('when a connection is catching up, then live events wait and are sent after, skipping what the catch-up covered', async () => {
    const { delivery, connect } = setup();
    const { conn, transport } = await connect('u1', 10, true);
    await delivery.deliver(event('COVERED', ['u1']), 11);
    await delivery.deliver(event('AFTER', ['u1']), 13);
    expect(transport.sent).toEqual([]);
    // The catch-up (a replay) sent events up to 12.
    conn.streamSeq = 12;
    await delivery.drain(conn);
    await delivery.deliver(event('LIVE', ['u1']), 14);
    expect(transport.sent.map((f) => [f.t, f.s])).toEqual([
      ['AFTER', 2],
      ['LIVE', 3],
    ]);
  });

  it('when the session was resumed on another connection, then this one closes with 1000 and sends nothing', async () => {
    const { store, delivery, connect } = setup();
    const { transport, session } = await connect('u1');
    store.sessions.get(session.id)!.owner = 'elsewhere';
    await delivery.deliver(event('A', ['u1']), 5);
    expect(transport.sent).toEqual([]);
    expect(transport.closedWith).toBe(1000);
  });

  it('when an event revokes the connection’s auth session, then it closes with 4004, the session ends, and other sockets get the event', async () => {
    const { store, delivery, connect } = setup();
    const revoked = await connect('u1');
    const other = await connect('u1');
    await delivery.deliver(event('AUTH_SESSION_CHANGE', ['u1'], { revoked_session_ids: ['auth-1'] }), 5);
    expect(revoked.transport.closedWith).toBe(4004);
    expect(revoked.transport.sent).toEqual([]);
    expect(store.sessions.has('s1')).toBe(false);
    expect(store.log).not.toContain('touch 5');
    expect(other.transport.sent).toEqual([{ op: 0, t: 'AUTH_SESSION_CHANGE', s: 2, d: { name: 'AUTH_SESSION_CHANGE' } }]);
  });

  it('when the store fails, then delivery throws, and the retry sends the event once', async () => {
    const { store, delivery, connect } = setup();
    const a = await connect('u1');
    const b = await connect('u1');
    store.failNext = true;
    await expect(delivery.deliver(event('A', ['u1']), 5)).rejects.toThrow('store down');
    await delivery.deliver(event('A', ['u1']), 5);
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

  describe('guild audiences', () => {
    it('when an event names a guild and users, then members’ connections and the named users get it once each, nobody else', async () => {
      const { delivery, connect } = setup();
      const member = await connect('u1', 0, false, ['g1']);
      const otherGuild = await connect('u2', 0, false, ['g2']);
      const alsoNamed = await connect('u3', 0, false, ['g1']);
      const outsider = await connect('u4');
      await delivery.deliver(guildEvent('GUILD_UPDATE', ['g1'], { id: 'g1' }, ['u3', 'u4']), 5);
      expect(member.transport.sent.map((f) => f.t)).toEqual(['GUILD_UPDATE']);
      expect(alsoNamed.transport.sent.map((f) => f.t)).toEqual(['GUILD_UPDATE']);
      expect(outsider.transport.sent.map((f) => f.t)).toEqual(['GUILD_UPDATE']);
      expect(otherGuild.transport.sent).toEqual([]);
    });

    it('when GUILD_CREATE (with the guild id) then GUILD_DELETE reach a user, then the guild’s events come in between only', async () => {
      const { store, delivery, connect } = setup();
      const { transport, session } = await connect('u1');
      const joined: EventEnvelope = { ...event('GUILD_CREATE', ['u1']), data: { id: 'g1', name: 'g' } };
      await delivery.deliver(joined, 5);
      expect(store.sessions.get(session.id)!.guildIds).toEqual(['g1']);
      await delivery.deliver(guildEvent('MESSAGE_A', ['g1']), 6);
      await delivery.deliver({ ...event('GUILD_DELETE', ['u1']), data: { id: 'g1' } }, 7);
      await delivery.deliver(guildEvent('MESSAGE_B', ['g1']), 8);
      expect(transport.sent.map((f) => f.t)).toEqual(['GUILD_CREATE', 'MESSAGE_A', 'GUILD_DELETE']);
      expect(store.sessions.get(session.id)!.guildIds).toEqual([]);
    });

    it('when the guild itself is deleted, then every member gets GUILD_DELETE and nothing of the guild after', async () => {
      const { delivery, connect } = setup();
      const a = await connect('u1', 0, false, ['g1']);
      const b = await connect('u2', 0, false, ['g1', 'g2']);
      await delivery.deliver(guildEvent('GUILD_DELETE', ['g1'], { id: 'g1' }), 5);
      await delivery.deliver(guildEvent('LATER', ['g1']), 6);
      await delivery.deliver(guildEvent('OTHER', ['g2']), 7);
      expect(a.transport.sent.map((f) => f.t)).toEqual(['GUILD_DELETE']);
      expect(b.transport.sent.map((f) => f.t)).toEqual(['GUILD_DELETE', 'OTHER']);
    });

    it('when GUILD_DELETE says the guild is unavailable (an outage), then the member stays subscribed', async () => {
      const { delivery, connect } = setup();
      const { transport } = await connect('u1', 0, false, ['g1']);
      await delivery.deliver(guildEvent('GUILD_DELETE', ['g1'], { id: 'g1', unavailable: true }), 5);
      await delivery.deliver(guildEvent('LATER', ['g1']), 6);
      expect(transport.sent.map((f) => f.t)).toEqual(['GUILD_DELETE', 'LATER']);
    });

    it('when a connection catching up joins a guild, then the guild’s events queued behind the join are sent too', async () => {
      const { delivery, connect } = setup();
      const { conn, transport } = await connect('u1', 3, true);
      await delivery.deliver(guildEvent('BEFORE', ['g1']), 4);
      await delivery.deliver({ ...event('GUILD_CREATE', ['u1']), data: { id: 'g1' } }, 5);
      await delivery.deliver(guildEvent('AFTER', ['g1']), 6);
      await delivery.drain(conn);
      await delivery.deliver(guildEvent('LIVE', ['g1']), 7);
      await delivery.deliver(guildEvent('ELSEWHERE', ['g2']), 8);
      expect(transport.sent.map((f) => f.t)).toEqual(['GUILD_CREATE', 'AFTER', 'LIVE']);
    });

    it('when a connection is released, then guild events no longer reach it', async () => {
      const { delivery, connect } = setup();
      const { conn, transport } = await connect('u1', 0, false, ['g1']);
      delivery.release(conn, 1000);
      await delivery.deliver(guildEvent('LATER', ['g1']), 6);
      expect(transport.sent).toEqual([]);
    });
  });
});
