import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient, type ServerFrame } from './gateway.client.js';
import {
  closedPort,
  newUser,
  publishEvent,
  sleep,
  startStack,
  startTestRealtime,
  stopStack,
  type RealtimeUnderTest,
  type Stack,
} from './harness.js';

/**
 * When a user's presence ends, as the platform ends it: a client that closes with 1000 or 1001
 * ends its session and its user appears offline; a connection dropped any other way keeps the
 * session resumable, and its user present, until the resume window has passed without a resume.
 * Guild members hear of it (no guilds service here: users join a guild as a live session does,
 * through GUILD_CREATE).
 */

const WINDOW_MS = 600;
let stack: Stack;
let realtime: RealtimeUnderTest;

beforeAll(async () => {
  stack = await startStack();
  realtime = await startTestRealtime(stack, { GUILDS_GRPC_ADDR: `127.0.0.1:${await closedPort()}`, RESUME_WINDOW_MS: String(WINDOW_MS) });
});

afterAll(async () => {
  await stopStack(stack);
});

type Member = Awaited<ReturnType<typeof member>>;

/** A user with a socket, in `guildId`. */
async function member(guildId: string, identify: Record<string, unknown> = {}) {
  const user = await newUser(stack);
  const { client, ready } = await GatewayClient.ready(realtime.url, user.token, { identify });
  keepAlive(client);
  await publishEvent(stack, { name: 'GUILD_CREATE', users: [user.userId], data: { id: guildId, name: 'A guild' } });
  await client.next((f) => f.t === 'GUILD_CREATE');
  return { user, client, sessionId: ready.session_id };
}

/** A marker to the user alone: once it arrives, every earlier event was dispatched to them. Answers what came before it. */
async function fence(who: Member): Promise<ServerFrame[]> {
  const marker = randomUUID();
  const before = who.client.frames.length;
  await publishEvent(stack, { name: 'USER_NOTE_UPDATE', users: [who.user.userId], data: { marker } });
  const found = await who.client.next((f) => (f.d as { marker?: string } | null)?.marker === marker);
  return who.client.frames.slice(before, who.client.frames.indexOf(found));
}

/** Heartbeats well within the short window, so a live session is kept while the test waits it out. */
function keepAlive(client: GatewayClient): void {
  const beat = setInterval(() => client.send(1, null), WINDOW_MS / 4);
  beat.unref();
  void client.closed.then(() => clearInterval(beat));
}

const presenceOf = (userId: string) => (f: ServerFrame) =>
  f.t === 'PRESENCE_UPDATE' && (f.d as { user: { id: string } }).user.id === userId;

async function resume(who: Member, seq: number | null): Promise<GatewayClient> {
  const client = await GatewayClient.connect(realtime.url);
  await client.next((f) => f.op === 10);
  client.send(6, { token: who.user.token, session_id: who.sessionId, seq });
  await client.next((f) => f.t === 'RESUMED');
  keepAlive(client);
  return client;
}

describe('presence at the last disconnect', () => {
  it('when a socket is dropped and its session is not resumed, then its guild sees the user offline once the resume window has passed', async () => {
    const guildId = randomUUID();
    const watcher = await member(guildId);
    const leaving = await member(guildId);
    leaving.client.drop();
    const offline = await watcher.client.next(presenceOf(leaving.user.userId), WINDOW_MS + 5000);
    expect(offline.d).toEqual({
      user: { id: leaving.user.userId },
      status: 'offline',
      activities: [],
      client_status: {},
      guild_id: guildId,
    });
    watcher.client.close();
  });

  it('when a dropped session is resumed within the window, then nobody is told the user went offline', async () => {
    const guildId = randomUUID();
    const watcher = await member(guildId);
    const back = await member(guildId);
    back.client.drop();
    const resumed = await resume(back, null);
    // Past the window the drop started: its check finds the session back and says nothing.
    await sleep(WINDOW_MS + 500);
    expect((await fence(watcher)).filter(presenceOf(back.user.userId))).toEqual([]);

    // Ended by the client (1000), the session cannot come back: offline at once, window or not.
    resumed.ws.close(1000);
    const offline = await watcher.client.next(presenceOf(back.user.userId));
    expect(offline.d).toMatchObject({ status: 'offline', guild_id: guildId });
    watcher.client.close();
  });

  it('when the user has another session still connected, then closing one of them tells nobody; closing the last does', async () => {
    const guildId = randomUUID();
    const watcher = await member(guildId);
    const twice = await member(guildId);
    const { client: second } = await GatewayClient.ready(realtime.url, twice.user.token);
    await publishEvent(stack, { name: 'GUILD_CREATE', users: [twice.user.userId], data: { id: guildId, name: 'A guild' } });
    await second.next((f) => f.t === 'GUILD_CREATE');
    second.ws.close(1000);
    await second.closed;
    twice.client.ws.close(1000);
    const seen = await watcher.client.next(presenceOf(twice.user.userId));
    expect(seen.d).toMatchObject({ status: 'offline' });
    expect(watcher.client.frames.filter(presenceOf(twice.user.userId))).toHaveLength(1);
    watcher.client.close();
  });

  it('when an invisible user’s last session ends, then nobody is told (they already appeared offline)', async () => {
    const guildId = randomUUID();
    const watcher = await member(guildId);
    const hidden = await member(guildId, { presence: { status: 'invisible', since: 0, activities: [], afk: false } });
    const shown = await member(guildId);
    hidden.client.ws.close(1000);
    await hidden.client.closed;
    // A visible user who leaves after: their offline comes, the invisible one's never did.
    shown.client.ws.close(1000);
    await watcher.client.next(presenceOf(shown.user.userId));
    expect(watcher.client.frames.filter(presenceOf(hidden.user.userId))).toEqual([]);
    watcher.client.close();
  });
});
