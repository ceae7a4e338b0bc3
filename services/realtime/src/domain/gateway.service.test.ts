import { describe, expect, it } from 'vitest';
import { createLogger, type EventEnvelope } from '@kith/platform';
import { GatewayConnection, type Transport } from './connection.js';
import { Delivery } from './delivery.js';
import { GatewayService } from './gateway.service.js';
import type {
  AuthPort,
  ClaimResult,
  ConnectionCountsPort,
  EventLogPort,
  GuildsPort,
  PresencePort,
  SessionStorePort,
  SocialPort,
} from './ports.js';

const noSearch = async () => ({ members: [], notFound: [] });

class FakeTransport implements Transport {
  readonly sent: { op: number; t: string | null; s: number | null; d: unknown }[] = [];
  closedWith: number | undefined;
  send(frame: string) {
    this.sent.push(JSON.parse(frame));
  }
  close(code: number) {
    this.closedWith = code;
  }
  compressEachFrame() {}
}

const auth: AuthPort = {
  async validate(token) {
    return token === 'good' ? { userId: 'u1', authSessionId: 'a1', authSessionIdHash: 'h1', bot: false } : null;
  },
  async currentUser(userId) {
    return { user: { id: userId, username: 'ada' }, settings: { locale: 'en-US', theme: 'dark' } };
  },
};

function setup(
  options: {
    claim?: ClaimResult;
    bounds?: { first: number; last: number };
    stream?: [EventEnvelope, number][];
    guilds?: GuildsPort;
    auth?: AuthPort;
    presence?: PresencePort;
    connections?: ConnectionCountsPort;
    social?: SocialPort;
  } = {},
) {
  let now = 0;
  const ended: string[] = [];
  const store: SessionStorePort = {
    create: async () => undefined,
    append: async (writes) => writes.map(() => true),
    touch: async () => true,
    claim: async () => options.claim ?? { status: 'missing' },
    end: async (id) => void ended.push(id),
  };
  const events: EventLogPort = {
    bounds: async () => options.bounds ?? { first: 1, last: 0 },
    async read(from, to, each) {
      for (const [event, seq] of options.stream ?? []) if (seq >= from && seq <= to) await each(event, seq);
    },
  };
  const position = { current: () => 7, processed: () => 7 };
  const logger = createLogger('test', 'silent');
  const delivery = new Delivery(store, position, logger);
  const gateway = new GatewayService({
    auth: options.auth ?? auth,
    ...(options.guilds ? { guilds: options.guilds } : {}),
    ...(options.presence ? { presence: options.presence } : {}),
    ...(options.social ? { social: options.social } : {}),
    store,
    events,
    position,
    delivery,
    ...(options.connections ? { connections: options.connections } : {}),
    logger,
    options: { heartbeatIntervalMs: 1000, publicUrl: 'ws://kith.test/gateway' },
    now: () => now,
  });
  const connect = () => {
    const transport = new FakeTransport();
    const conn = new GatewayConnection(`c${Math.random()}`, transport, '127.0.0.1', 9, now);
    gateway.open(conn);
    return { conn, transport };
  };
  const send = (conn: GatewayConnection, op: number, d: unknown) => gateway.receive(conn, Buffer.from(JSON.stringify({ op, d })));
  return { gateway, delivery, connect, send, ended, advance: (ms: number) => (now += ms) };
}

const event = (name: string): EventEnvelope => ({
  id: name,
  service: 'test',
  name,
  occurred_at: '2026-01-01T00:00:00.000Z',
  audience: { users: ['u1'] },
  data: { name },
});

/** Auth that knows the token at the first check and not from then on: a logout committed in between. */
const loggedOutAfterFirstCheck = (): AuthPort => {
  let checks = 0;
  return { ...auth, validate: async (token, ip) => (checks++ === 0 ? auth.validate(token, ip) : null) };
};

describe('GatewayService', () => {
  it('when an identified client sends op 3, then its presence goes out to its guilds (invisible as offline); an invalid one closes with 4001', async () => {
    const updates: unknown[] = [];
    const presence: PresencePort = {
      update: async (...args) => void updates.push(args),
      connected: async () => undefined,
      disconnected: async () => undefined,
    };
    const { connect, send } = setup({ presence });
    const { conn, transport } = connect();
    await send(conn, 2, { token: 'good', properties: {} });
    conn.guilds = new Set(['g1']);
    await send(conn, 3, { status: 'idle', since: 0, activities: [{ name: 'Chess', type: 0 }], afk: true });
    await send(conn, 3, { status: 'invisible', since: 0, activities: [{ name: 'Chess', type: 0 }], afk: false });
    expect(updates).toEqual([
      ['u1', { status: 'idle', activities: [{ name: 'Chess', type: 0 }] }, ['g1']],
      ['u1', { status: 'offline', activities: [] }, ['g1']],
    ]);
    await send(conn, 3, { status: 'asleep', activities: [] });
    expect(transport.closedWith).toBe(4001);
  });

  it('when a client identifies with a presence, then its user counts as connected with it (invisible as offline, unknown as none); its close says whether the session can come back', async () => {
    const calls: unknown[] = [];
    const presence: PresencePort = {
      update: async () => undefined,
      connected: async (...args) => void calls.push(['connected', ...args]),
      disconnected: async (...args) => void calls.push(['disconnected', ...args]),
    };
    // READY's relationships: one friend, one blocked user. The friends go along to be told, not asked for again.
    const social: SocialPort = {
      relationships: async () => [
        { id: 'f1', type: 1 },
        { id: 'b1', type: 2 },
      ],
    };
    const { gateway, connect, send } = setup({ presence, social });
    const sessions = [
      [{ status: 'dnd', since: 0, activities: [{ name: 'Chess', type: 0 }], afk: false }, 1000],
      [{ status: 'invisible', since: 0, activities: [{ name: 'Chess', type: 0 }], afk: false }, 4000],
      [{ status: 'unknown', since: 0, activities: [], afk: false }, 1001],
      [undefined, 1006],
    ] as const;
    const ids: string[] = [];
    for (const [requested, code] of sessions) {
      const { conn } = connect();
      ids.push(conn.id);
      await send(conn, 2, { token: 'good', properties: {}, ...(requested ? { presence: requested } : {}) });
      gateway.closed(conn, code);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([
      ['connected', 'u1', ids[0], { status: 'dnd', activities: [{ name: 'Chess', type: 0 }] }, [], ['f1']],
      ['disconnected', 'u1', ids[0], false, []],
      ['connected', 'u1', ids[1], { status: 'offline', activities: [] }, [], ['f1']],
      ['disconnected', 'u1', ids[1], true, []],
      ['connected', 'u1', ids[2], undefined, [], ['f1']],
      ['disconnected', 'u1', ids[2], false, []],
      ['connected', 'u1', ids[3], undefined, [], ['f1']],
      ['disconnected', 'u1', ids[3], true, []],
    ]);
  });

  it('when Identify carries a presence with an invalid status, then the socket closes with 4002', async () => {
    const { connect, send } = setup();
    const { conn, transport } = connect();
    await send(conn, 2, { token: 'good', properties: {}, presence: { status: 'asleep', activities: [] } });
    expect(transport.closedWith).toBe(4002);
  });

  it('when the client closes with 1000 or 1001, then its session ends; with another code, then it is kept to resume', async () => {
    for (const [code, ends] of [
      [1000, true],
      [1001, true],
      [1006, false],
      [4200, false],
    ] as const) {
      const { gateway, connect, send, ended } = setup();
      const { conn } = connect();
      await send(conn, 2, { token: 'good', properties: {} });
      gateway.closed(conn, code);
      await new Promise((resolve) => setImmediate(resolve));
      expect(ended).toHaveLength(ends ? 1 : 0);
    }
  });

  it('when ready connections close, then each counts its user off once, and one that never got ready not at all', async () => {
    const calls: string[] = [];
    const connections: ConnectionCountsPort = {
      online: async (u) => void calls.push(`on:${u}`),
      offline: async (u) => void calls.push(`off:${u}`),
      guestLeft: async (u, s, g) => void calls.push(`guest:${u}:${s}:${g.join(',')}`),
    };
    const { gateway, connect, send } = setup({ connections });
    const first = connect();
    const second = connect();
    const idle = connect();
    await send(first.conn, 2, { token: 'good', properties: {} });
    await send(second.conn, 2, { token: 'good', properties: {} });
    gateway.closed(first.conn);
    gateway.close(first.conn, 4000);
    gateway.closed(idle.conn);
    gateway.close(second.conn, 1000);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['on:u1', 'on:u1', 'off:u1', 'off:u1']);
  });

  it('when a connection holding guest access closes, then the departure is announced with its session and guilds, once', async () => {
    const calls: string[] = [];
    const connections: ConnectionCountsPort = {
      online: async (u) => void calls.push(`on:${u}`),
      offline: async (u) => void calls.push(`off:${u}`),
      guestLeft: async (u, s, g) => void calls.push(`guest:${u}:${s}:${g.join(',')}`),
    };
    const { gateway, connect, send } = setup({ connections });
    const guest = connect();
    await send(guest.conn, 2, { token: 'good', properties: {} });
    const sessionId = guest.conn.session!.id;
    guest.conn.guestGuilds.add('g1');
    gateway.closed(guest.conn, 1000);
    gateway.close(guest.conn, 4000);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['on:u1', `guest:u1:${sessionId}:g1`, 'off:u1']);
  });

  it('when the token is logged out after Identify checked it, then the connection closes with 4004 before READY', async () => {
    const { connect, send, delivery } = setup({ auth: loggedOutAfterFirstCheck() });
    const { conn, transport } = connect();
    await send(conn, 2, { token: 'good', properties: {} });
    expect(transport.sent.map((f) => f.op)).toEqual([10]);
    expect(transport.closedWith).toBe(4004);
    expect(delivery.size).toBe(0);
  });

  it('when the token is logged out after Resume checked it, then the connection closes with 4004 and nothing is replayed', async () => {
    const claim: ClaimResult = { status: 'ok', seq: 1, streamSeq: 7, frames: ['{"op":0,"t":"X","s":1,"d":{}}'], guildIds: [], intents: 0 };
    const { connect, send, delivery } = setup({
      auth: loggedOutAfterFirstCheck(),
      claim,
      bounds: { first: 1, last: 9 },
      stream: [[event('LATER'), 8]],
    });
    const { conn, transport } = connect();
    await send(conn, 6, { token: 'good', session_id: 's1', seq: 0 });
    expect(transport.sent.map((f) => f.op)).toEqual([10]);
    expect(transport.closedWith).toBe(4004);
    expect(delivery.size).toBe(0);
  });

  it('when a client identifies, then READY (s 1) starts its session after the stream position of the moment', async () => {
    const { connect, send } = setup();
    const { conn, transport } = connect();
    await send(conn, 2, { token: 'good', properties: {} });
    expect(transport.sent.map((f) => [f.op, f.t, f.s])).toEqual([
      [10, null, null],
      [0, 'READY', 1],
    ]);
    expect(transport.sent[1]!.d).toMatchObject({
      user: { id: 'u1' },
      auth_session_id_hash: 'h1',
      resume_gateway_url: 'ws://kith.test/gateway',
    });
    expect(conn.streamSeq).toBe(7);
  });

  it('when the stream is ahead of this replica’s consumer, then a new session starts at the stream’s end', async () => {
    const { connect, send } = setup({ bounds: { first: 1, last: 42 } });
    const { conn } = connect();
    await send(conn, 2, { token: 'good', properties: {} });
    expect(conn.streamSeq).toBe(42);
  });

  it('when heartbeats stop, then the sweep closes the connection with 4009 after 1.5 intervals, not before', () => {
    const { gateway, connect, advance } = setup();
    const { transport } = connect();
    advance(1500);
    gateway.sweep();
    expect(transport.closedWith).toBeUndefined();
    advance(1);
    gateway.sweep();
    expect(transport.closedWith).toBe(4009);
    expect(gateway.connections).toBe(0);
  });

  it('when the service shuts down, then every client gets op 7 and those still there are closed with 4000', async () => {
    const { gateway, connect } = setup();
    const clients = [connect(), connect()];
    await gateway.shutdown(0);
    for (const { transport } of clients) {
      expect(transport.sent.at(-1)).toEqual({ op: 7, d: null, s: null, t: null });
      expect(transport.closedWith).toBe(4000);
    }
  });

  it('when a resume finds the stream no longer holds what the session missed, then op 9 and the session ends', async () => {
    const { connect, send, ended } = setup({
      claim: { status: 'ok', seq: 3, streamSeq: 10, frames: [], guildIds: [], intents: 0 },
      bounds: { first: 20, last: 30 },
    });
    const { conn, transport } = connect();
    await send(conn, 6, { token: 'good', session_id: 's1', seq: 3 });
    expect(transport.sent.at(-1)).toMatchObject({ op: 9, d: false });
    expect(ended).toEqual(['s1']);
    expect(conn.phase).toBe('hello');
  });

  it('when a resume succeeds, then kept frames, then the missed events of the user, then RESUMED', async () => {
    const kept = JSON.stringify({ op: 0, t: 'KEPT', s: 3, d: {} });
    const other = { ...event('OTHER'), audience: { users: ['u2'] } };
    const { connect, send } = setup({
      claim: { status: 'ok', seq: 3, streamSeq: 10, frames: [kept], guildIds: [], intents: 0 },
      bounds: { first: 1, last: 13 },
      stream: [
        [event('MISSED'), 11],
        [other, 12],
        [event('ALSO'), 13],
      ],
    });
    const { conn, transport } = connect();
    await send(conn, 6, { token: 'good', session_id: 's1', seq: 2 });
    expect(transport.sent.slice(1).map((f) => [f.t, f.s])).toEqual([
      ['KEPT', 3],
      ['MISSED', 4],
      ['ALSO', 5],
      ['RESUMED', null],
    ]);
    expect(conn.streamSeq).toBe(13);
  });

  it('when guilds answers, then READY carries its guilds and private channels, and the connection follows those guilds', async () => {
    const guilds: GuildsPort = {
      searchMembers: noSearch,
      readyState: async () => ({
        guilds: [{ id: 'g1', name: 'G' }],
        privateChannels: [{ id: 'dm1', type: 1 }],
        guildIds: ['g1'],
        intents: 0,
      }),
    };
    const { connect, send } = setup({ guilds });
    const { conn, transport } = connect();
    await send(conn, 2, { token: 'good', properties: {} });
    expect(transport.sent[1]!.d).toMatchObject({ guilds: [{ id: 'g1', name: 'G' }], private_channels: [{ id: 'dm1', type: 1 }] });
    expect([...conn.guilds]).toEqual(['g1']);
  });

  it('when guilds is down, then READY still comes, with no guilds', async () => {
    const guilds: GuildsPort = {
      searchMembers: noSearch,
      readyState: async () => {
        throw new Error('unavailable');
      },
    };
    const { connect, send } = setup({ guilds });
    const { conn, transport } = connect();
    await send(conn, 2, { token: 'good', properties: {} });
    expect(transport.sent[1]).toMatchObject({ t: 'READY', d: { guilds: [], private_channels: [] } });
  });

  it('when a resume replays, then guild events follow the session’s guilds as they change along the stream', async () => {
    const inGuild = (name: string, guildId: string): EventEnvelope => ({ ...event(name), audience: { guilds: [guildId] } });
    const { connect, send } = setup({
      claim: { status: 'ok', seq: 3, streamSeq: 10, frames: [], guildIds: ['g1'], intents: 0 },
      bounds: { first: 1, last: 15 },
      stream: [
        [inGuild('G1_EVENT', 'g1'), 11],
        [inGuild('G2_BEFORE_JOIN', 'g2'), 12],
        [{ ...event('GUILD_CREATE'), data: { id: 'g2' } }, 13],
        [inGuild('G2_EVENT', 'g2'), 14],
        [{ ...inGuild('GUILD_DELETE', 'g1'), data: { id: 'g1' } }, 15],
      ],
    });
    const { conn, transport } = connect();
    await send(conn, 6, { token: 'good', session_id: 's1', seq: 3 });
    expect(transport.sent.slice(1).map((f) => f.t)).toEqual(['G1_EVENT', 'GUILD_CREATE', 'G2_EVENT', 'GUILD_DELETE', 'RESUMED']);
    expect([...conn.guilds]).toEqual(['g2']);
  });

  it('when the user joins a guild while READY is being put together, then GUILD_CREATE and the guild’s events follow READY', async () => {
    let answer!: (state: { guilds: unknown[]; privateChannels: unknown[]; guildIds: string[] }) => void;
    const guilds: GuildsPort = { searchMembers: noSearch, readyState: () => new Promise((resolve) => (answer = resolve)) };
    const { connect, send, delivery } = setup({ guilds });
    const { conn, transport } = connect();
    const identified = send(conn, 2, { token: 'good', properties: {} });
    await new Promise((resolve) => setTimeout(resolve, 0));
    await delivery.deliver([{ event: { ...event('GUILD_CREATE'), data: { id: 'g2' } }, streamSeq: 8 }]);
    await delivery.deliver([{ event: { ...event('IN_G2'), audience: { guilds: ['g2'] } }, streamSeq: 9 }]);
    answer({ guilds: [{ id: 'g1' }], privateChannels: [], guildIds: ['g1'] });
    await identified;
    expect(transport.sent.slice(1).map((f) => [f.t, f.s])).toEqual([
      ['READY', 1],
      ['GUILD_CREATE', 2],
      ['IN_G2', 3],
    ]);
    expect([...conn.guilds].sort()).toEqual(['g1', 'g2']);
  });
});
