import { randomUUID } from 'node:crypto';
import { CompressionMethod, WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { connect } from 'nats';
import { describe, expect, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import type { EventEnvelope } from '@kith/platform';
import { api, newUser, userRest } from './client.js';

/** The user id behind a token, as the API tells its owner. */
async function userIdOf(token: string): Promise<string> {
  return (await api('GET', '/users/@me', { token })).json.id as string;
}

/** An event on the stream, as a service's outbox relay publishes it. */
async function publish(name: string, userId: string, data: unknown): Promise<void> {
  const nc = await connect({ servers: inject('stores').NATS_URL });
  const envelope: EventEnvelope = {
    id: randomUUID(),
    service: 'e2e',
    name,
    occurred_at: new Date().toISOString(),
    audience: { users: [userId] },
    data,
  };
  await nc.jetstream().publish(`events.e2e.${name}`, JSON.stringify(envelope), { msgID: envelope.id });
  await nc.close();
}

function manager(token: string, compression: CompressionMethod | null = null) {
  const rest = userRest(token);
  return new WebSocketManager({ token, intents: 0, rest, compression });
}

describe('the gateway, as real clients use it', () => {
  it('when GET /gateway is asked, then it names the socket URL on the edge', async () => {
    const res = await api('GET', '/gateway');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ url: `${inject('gatewayOrigin').replace('http', 'ws')}/gateway` });
  });

  it('when @discordjs/ws connects with a Kith token, then it receives READY for that user and later dispatches', async () => {
    const { token, username } = await newUser();
    const userId = await userIdOf(token);
    const ws = manager(token);
    const ready = new Promise<{ user: { id: string; username: string }; session_id: string }>((resolve) =>
      ws.once(WebSocketShardEvents.Ready, (payload) => resolve(payload as never)),
    );
    const dispatched = new Promise<{ t: string; d: unknown }>((resolve) =>
      ws.on(WebSocketShardEvents.Dispatch, (payload) => {
        if ((payload.t as string) === 'RELATIONSHIP_ADD') resolve(payload as never);
      }),
    );
    await ws.connect();
    try {
      expect(await ready).toMatchObject({ user: { id: userId, username }, session_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      await publish('RELATIONSHIP_ADD', userId, { id: userId, type: 1 });
      expect(await dispatched).toMatchObject({ t: 'RELATIONSHIP_ADD', d: { id: userId, type: 1 } });
    } finally {
      await ws.destroy();
    }
  });

  it('when @discordjs/ws sends guild subscriptions (op 37) right after READY, as user-account clients do, then dispatches keep coming on the same connection', async () => {
    const { token } = await newUser();
    const userId = await userIdOf(token);
    const ws = manager(token);
    const closes: number[] = [];
    let readies = 0;
    let resumes = 0;
    ws.on(WebSocketShardEvents.Closed, (code) => void closes.push(code));
    ws.on(WebSocketShardEvents.Resumed, () => void resumes++);
    const ready = new Promise<void>((resolve) =>
      ws.on(WebSocketShardEvents.Ready, () => {
        readies++;
        resolve();
      }),
    );
    const dispatched = new Promise<{ t: string; d: unknown }>((resolve) =>
      ws.on(WebSocketShardEvents.Dispatch, (payload) => {
        if ((payload.t as string) === 'RELATIONSHIP_ADD') resolve(payload as never);
      }),
    );
    await ws.connect();
    try {
      await ready;
      const send = (op: number, d: unknown) => ws.send(0, { op, d } as never);
      await send(37, { subscriptions: { '1': { typing: true, threads: true, activities: true, member_updates: false } } });
      await send(3, { status: 'online', since: 0, activities: [], afk: false });
      await send(14, { guild_id: '1', typing: true });
      await send(4, { guild_id: null, channel_id: null, self_mute: false, self_deaf: false });
      await publish('RELATIONSHIP_ADD', userId, { id: userId, type: 1 });
      expect(await dispatched).toMatchObject({ t: 'RELATIONSHIP_ADD', d: { id: userId, type: 1 } });
      expect({ closes, readies, resumes }).toEqual({ closes: [], readies: 1, resumes: 0 });
    } finally {
      await ws.destroy();
    }
  });

  it('when @discordjs/ws asks for zlib-stream compression, then it still receives READY', async () => {
    const { token } = await newUser();
    const ws = manager(token, CompressionMethod.ZlibNative);
    const ready = new Promise<{ user: { id: string } }>((resolve) =>
      ws.once(WebSocketShardEvents.Ready, (payload) => resolve(payload as never)),
    );
    await ws.connect();
    try {
      expect((await ready).user.id).toBe(await userIdOf(token));
    } finally {
      await ws.destroy();
    }
  });

  it('when a plain WebSocket client identifies through the edge, then Hello, READY and heartbeat ACKs come back', async () => {
    const { token } = await newUser();
    const client = await identified(token, '/gateway/?v=9&encoding=json');
    client.socket.send(JSON.stringify({ op: 1, d: 1 }));
    await client.until((f) => f.op === 11);
    expect(client.frames.map((f) => [f.op, f.t ?? null])).toEqual([
      [10, null],
      [0, 'READY'],
      [11, null],
    ]);
    client.socket.close();
  });

  it('when a session is logged out, then its token is refused on its next request, its socket closes with 4004 and the user’s other socket is told nothing', async () => {
    const user = await newUser();
    const login = await api('POST', '/auth/login', { body: { login: user.email, password: user.password } });
    const other = login.json.token as string;
    const leaving = await identified(user.token);
    const staying = await identified(other);
    // The edge caches the token past its short TTL while its revocation feed is live.
    expect((await api('GET', '/users/@me', { token: user.token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect((await api('GET', '/users/@me', { token: user.token })).status).toBe(200);

    const logout = await api('POST', '/auth/sessions/logout', {
      token: other,
      body: { session_id_hashes: [leaving.ready.auth_session_id_hash] },
    });
    expect(logout.status).toBe(204);
    expect((await api('GET', '/users/@me', { token: user.token })).status).toBe(401);
    expect(await leaving.closed).toBe(4004);
    // AUTH_SESSION_CHANGE tells a connection its own session changed: the next dispatch is the probe.
    await publish('RELATIONSHIP_ADD', await userIdOf(other), { probe: true });
    await staying.until((f) => f.t === 'RELATIONSHIP_ADD');
    expect(staying.frames.filter((f) => f.op === 0 && f.t !== 'READY')).toEqual([
      { op: 0, t: 'RELATIONSHIP_ADD', s: 2, d: { probe: true } },
    ]);
    staying.socket.close();
  });
});

interface Frame {
  op: number;
  t?: string | null;
  s?: number | null;
  d?: unknown;
}

/** A plain WebSocket through the edge, identified with `token`; its frames, READY's data and how it closes. */
async function identified(token: string, path = '/gateway?v=9&encoding=json') {
  const socket = new WebSocket(`${inject('gatewayOrigin').replace('http', 'ws')}${path}`);
  const frames: Frame[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(data.toString())));
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  const until = async (match: (f: Frame) => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!frames.some(match)) {
      if (Date.now() > deadline) throw new Error(`no matching frame; got ${JSON.stringify(frames.slice(-2))}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return frames.find(match)!;
  };
  await until((f) => f.op === 10);
  socket.send(JSON.stringify({ op: 2, d: { token, properties: {} } }));
  const ready = (await until((f) => f.t === 'READY')).d as { auth_session_id_hash: string };
  return { socket, frames, ready, closed, until };
}
