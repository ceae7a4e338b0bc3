import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './gateway.client.js';
import { newBot, newUser, publishEvent, startStack, startTestRealtime, stopStack, type RealtimeUnderTest, type Stack } from './harness.js';

let stack: Stack;
let realtime: RealtimeUnderTest;
/** Beats every 300 ms: a silent client is closed after ~450 ms. */
let quick: RealtimeUnderTest;

beforeAll(async () => {
  stack = await startStack();
  realtime = await startTestRealtime(stack);
  quick = await startTestRealtime(stack, { HEARTBEAT_INTERVAL_MS: '300' });
});

afterAll(async () => {
  await stopStack(stack);
});

describe('Identify', () => {
  it('when a client connects, then Hello carries the heartbeat interval', async () => {
    const client = await GatewayClient.connect(realtime.url);
    const hello = await client.next();
    expect(hello).toEqual({ op: 10, d: { heartbeat_interval: 41250 }, s: null, t: null });
    client.close();
  });

  it('when a user identifies, then READY (s 1) carries the session, the user and the auth session hash', async () => {
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(realtime.url, user.token, { identify: { shard: [0, 1] } });
    const frame = client.frames.find((f) => f.t === 'READY')!;
    expect(frame).toMatchObject({ op: 0, s: 1 });
    expect(ready).toMatchObject({
      v: 9,
      user: {
        id: user.userId,
        username: user.username,
        email: user.email,
        discriminator: '0',
        verified: false,
        mfa_enabled: false,
        bot: false,
      },
      session_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      session_type: 'normal',
      resume_gateway_url: 'ws://127.0.0.1:8080/gateway',
      auth_session_id_hash: expect.any(String),
      relationships: [],
      guilds: [],
      private_channels: [],
      user_settings: { locale: 'en-US', theme: 'dark' },
      shard: [0, 1],
    });
    expect(ready.sessions).toEqual([
      { session_id: ready.session_id, client_info: { client: 'web', os: 'linux', version: 0 }, status: 'online', activities: [] },
    ]);
    expect(ready).not.toHaveProperty('application');
    client.close();
  });

  it('when a bot identifies with its bare token or as "Bot <token>" (?v=10), then READY for the bot either way', async () => {
    const bot = await newBot(stack, 'Gateway Bot');
    const bare = await GatewayClient.ready(realtime.url, bot.token);
    expect(bare.ready).toMatchObject({ v: 9, user: { id: bot.userId, bot: true } });
    bare.client.close();
    const prefixed = await GatewayClient.ready(realtime.url, `bot ${bot.token}`, { query: 'v=10&encoding=json' });
    expect(prefixed.ready).toMatchObject({ v: 10, user: { id: bot.userId, bot: true } });
    prefixed.client.close();
  });

  it('when a token comes in a form its kind may not use, then 4004 as the edge refuses it (a user’s under Bot, anything under Bearer)', async () => {
    const user = await newUser(stack);
    const bot = await newBot(stack, 'Bearer Bot');
    for (const token of [`Bot ${user.token}`, `Bearer ${user.token}`, `Bearer ${bot.token}`, 'Bot ', 'Bot  \t']) {
      const client = await GatewayClient.connect(realtime.url);
      await client.next((f) => f.op === 10);
      client.send(2, { token, properties: {} });
      expect(await client.closed).toEqual({ code: 4004, reason: 'Authentication failed.' });
    }
    // The REST edge agrees: a user's token under Bot is a 401.
    const rest = await fetch(`${stack.gateway.base}/api/v9/users/@me`, { headers: { authorization: `Bot ${user.token}` } });
    expect(rest.status).toBe(401);
    // And a Resume in a refused form is refused the same way.
    const { client, ready } = await GatewayClient.ready(realtime.url, user.token);
    client.close();
    await client.closed;
    const resumer = await GatewayClient.connect(realtime.url);
    await resumer.next((f) => f.op === 10);
    resumer.send(6, { token: `Bot ${user.token}`, session_id: ready.session_id, seq: 1 });
    expect(await resumer.closed).toEqual({ code: 4004, reason: 'Authentication failed.' });
  });

  it('when the READY hash is looked up in /auth/sessions, then it names the token’s session', async () => {
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(realtime.url, user.token);
    const res = await fetch(`${stack.gateway.base}/api/v9/auth/sessions`, { headers: { authorization: user.token } });
    const { user_sessions } = (await res.json()) as { user_sessions: { id_hash: string }[] };
    expect(user_sessions.map((s) => s.id_hash)).toContain(ready.auth_session_id_hash);
    client.close();
  });
});

describe('heartbeats', () => {
  it('when a client heartbeats before and after identifying, then each gets an ACK', async () => {
    const user = await newUser(stack);
    const client = await GatewayClient.connect(realtime.url);
    client.send(1, null);
    expect(await client.next((f) => f.op !== 10)).toEqual({ op: 11, d: null, s: null, t: null });
    client.send(2, { token: user.token, properties: {} });
    await client.next((f) => f.t === 'READY');
    client.send(1, 1);
    expect(await client.next()).toMatchObject({ op: 11 });
    client.close();
  });

  it('when a client keeps heartbeating in time, then it stays connected past several intervals', async () => {
    const user = await newUser(stack);
    const { client } = await GatewayClient.ready(quick.url, user.token);
    const beat = setInterval(() => client.send(1, null), 200);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    clearInterval(beat);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    client.close();
  });

  it('when a client stops heartbeating, then it is closed with 4009 (session timed out)', async () => {
    const user = await newUser(stack);
    const { client } = await GatewayClient.ready(quick.url, user.token);
    // No heartbeat is ever sent: the server's own timer must end the socket (the test's timeout bounds the wait).
    const { code } = await client.closed;
    expect(code).toBe(4009);
  });
});

describe('protocol failures', () => {
  async function closeCodeAfter(steps: (client: GatewayClient) => Promise<void> | void) {
    const client = await GatewayClient.connect(realtime.url);
    await client.next((f) => f.op === 10);
    await steps(client);
    return (await client.closed).code;
  }

  it('when the token is unknown, then 4004 Authentication failed', async () => {
    const client = await GatewayClient.connect(realtime.url);
    client.send(2, { token: 'not-a-token', properties: {} });
    expect(await client.closed).toEqual({ code: 4004, reason: 'Authentication failed.' });
  });

  it('when a client identifies twice, then 4005', async () => {
    const user = await newUser(stack);
    const { client } = await GatewayClient.ready(realtime.url, user.token);
    client.send(2, { token: user.token, properties: {} });
    expect((await client.closed).code).toBe(4005);
  });

  it('when a second Identify arrives while the first is being checked, then 4005', async () => {
    const user = await newUser(stack);
    const code = await closeCodeAfter((client) => {
      client.send(2, { token: user.token, properties: {} });
      client.send(2, { token: user.token, properties: {} });
    });
    expect(code).toBe(4005);
  });

  it('when a client sends a presence update before identifying, then 4003', async () => {
    expect(await closeCodeAfter((c) => c.send(3, { status: 'online', since: 0, activities: [], afk: false }))).toBe(4003);
  });

  it('when a frame is not JSON, is JSON without an op, or Identify has no token, then 4002', async () => {
    expect(await closeCodeAfter((c) => c.sendRaw('{nope'))).toBe(4002);
    expect(await closeCodeAfter((c) => c.sendRaw(JSON.stringify({ d: {} })))).toBe(4002);
    expect(await closeCodeAfter((c) => c.sendRaw(Buffer.from([0xff, 0x00, 0x83])))).toBe(4002);
    expect(await closeCodeAfter((c) => c.send(2, { properties: {} }))).toBe(4002);
  });

  for (const op of [12, 15, 44, 99]) {
    it(`when an identified client sends op ${op}, which the platform does not define, then 4001`, async () => {
      const user = await newUser(stack);
      const { client } = await GatewayClient.ready(realtime.url, user.token);
      client.send(op, null);
      expect((await client.closed).code).toBe(4001);
    });
  }

  it('when an identified client sends every documented client opcode, then it stays connected and keeps getting its events', async () => {
    const user = await newUser(stack);
    const { client } = await GatewayClient.ready(realtime.url, user.token);
    // Guild subscriptions as a user-account client sends them right after READY, then the rest.
    client.send(37, { subscriptions: { '1': { typing: true, activities: true, threads: true, channels: { '2': [[0, 99]] } } } });
    client.send(14, { guild_id: '1', typing: true, channels: {} });
    client.send(4, { guild_id: null, channel_id: null, self_mute: false, self_deaf: false });
    for (const op of [5, 13, 17, 18, 19, 20, 21, 22, 28, 29, 30, 31, 32, 33, 34, 35, 36, 38, 39, 41, 42, 43]) client.send(op, {});
    client.send(40, { seq: 1, qos: { ver: 26, active: true, reasons: ['foregrounded'] } });
    expect(await client.next((f) => f.op === 11)).toMatchObject({ op: 11 });
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { after: 'ops' } });
    expect(await client.next((f) => f.t === 'RELATIONSHIP_ADD')).toEqual({ op: 0, t: 'RELATIONSHIP_ADD', s: 2, d: { after: 'ops' } });
    client.close();
  });

  it('when a client sends a guild subscription before identifying, then 4003', async () => {
    expect(await closeCodeAfter((c) => c.send(37, { subscriptions: {} }))).toBe(4003);
  });

  it('when an identified client sends a presence update, then it stays connected', async () => {
    const user = await newUser(stack);
    const { client } = await GatewayClient.ready(realtime.url, user.token);
    client.send(3, { status: 'online', since: 0, activities: [], afk: false });
    client.send(1, null);
    expect(await client.next((f) => f.op === 11)).toMatchObject({ op: 11 });
    client.close();
  });

  it('when a client asks for an encoding other than json, then 4002', async () => {
    const client = await GatewayClient.connect(realtime.url, { query: 'v=9&encoding=etf' });
    expect((await client.closed).code).toBe(4002);
  });

  it('when a socket is opened on another path, then the upgrade is refused with 404', async () => {
    await expect(GatewayClient.connect(realtime.url.replace('/gateway', '/elsewhere'))).rejects.toThrow(/404/);
  });

  it('when the path has a trailing slash and no query, then the gateway answers Hello', async () => {
    const client = await GatewayClient.connect(`${realtime.url}/`, { query: '' });
    expect(await client.next()).toMatchObject({ op: 10 });
    client.close();
  });
});
