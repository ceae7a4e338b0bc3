import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './gateway.client.js';
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

let stack: Stack;
let realtime: RealtimeUnderTest;
/** A second replica: guild events reach members' sockets on every replica, from one stream message. */
let other: RealtimeUnderTest;

beforeAll(async () => {
  stack = await startStack();
  // No guilds service here: sessions start in no guild, and join through GUILD_CREATE as a live
  // session does when its user joins one.
  const guilds = { GUILDS_GRPC_ADDR: `127.0.0.1:${await closedPort()}` };
  realtime = await startTestRealtime(stack, guilds);
  other = await startTestRealtime(stack, guilds);
});

afterAll(async () => {
  await stopStack(stack);
});

const newGuildId = () => randomUUID();

/** A user with a socket on `on`. */
async function member(on: RealtimeUnderTest) {
  const user = await newUser(stack);
  const { client, ready } = await GatewayClient.ready(on.url, user.token);
  return { user, client, sessionId: ready.session_id };
}

/** The user joins `guildId` as the guilds service tells them: GUILD_CREATE for them alone; resolves once their socket has it. */
async function join(who: Awaited<ReturnType<typeof member>>, guildId: string) {
  await publishEvent(stack, { name: 'GUILD_CREATE', users: [who.user.userId], data: { id: guildId, name: 'A guild' } });
  await who.client.next((f) => f.t === 'GUILD_CREATE' && (f.d as { id: string }).id === guildId);
}

/** A marker sent to the user alone; once it arrives, every earlier event was dispatched to their socket or was not theirs. */
async function fence(who: Awaited<ReturnType<typeof member>>) {
  const marker = randomUUID();
  await publishEvent(stack, { name: 'USER_NOTE_UPDATE', users: [who.user.userId], data: { marker } });
  await who.client.next((f) => (f.d as { marker?: string }).marker === marker);
}

const names = (client: GatewayClient) => client.dispatches().map((f) => f.t);

describe('guild-scoped delivery', () => {
  it('when the guilds service cannot be reached, then READY still comes, with no guilds or private channels', async () => {
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(realtime.url, user.token);
    expect(ready).toMatchObject({ guilds: [], private_channels: [], user: { id: user.userId } });
    client.close();
  });

  it('when an event names a guild, then every member’s socket on every replica gets it once, and no one else’s', async () => {
    const guildId = newGuildId();
    const alice = await member(realtime);
    const bob = await member(other);
    const carol = await member(realtime);
    await join(alice, guildId);
    await join(bob, guildId);

    const { envelope } = await publishEvent(stack, {
      name: 'GUILD_UPDATE',
      guilds: [guildId],
      users: [alice.user.userId],
      data: { id: guildId },
    });
    for (const who of [alice, bob]) {
      expect(await who.client.next((f) => f.t === 'GUILD_UPDATE')).toEqual({ op: 0, t: 'GUILD_UPDATE', s: 3, d: envelope.data });
      await fence(who);
      expect(names(who.client)).toEqual(['GUILD_CREATE', 'GUILD_UPDATE', 'USER_NOTE_UPDATE']);
    }
    await fence(carol);
    expect(names(carol.client)).toEqual(['USER_NOTE_UPDATE']);
    for (const who of [alice, bob, carol]) who.client.close();
  });

  it('when a user joins through GUILD_CREATE, then the guild’s events after it reach them, and those before did not', async () => {
    const guildId = newGuildId();
    const dave = await member(realtime);
    await publishEvent(stack, { name: 'CHANNEL_CREATE', guilds: [guildId], data: { before: true } });
    await join(dave, guildId);
    await publishEvent(stack, { name: 'CHANNEL_CREATE', guilds: [guildId], data: { after: true } });
    expect((await dave.client.next((f) => f.t === 'CHANNEL_CREATE')).d).toEqual({ after: true });
    expect(names(dave.client)).toEqual(['GUILD_CREATE', 'CHANNEL_CREATE']);
    dave.client.close();
  });

  it('when a member is removed (GUILD_DELETE to them), then the guild’s later events stop reaching them, not the others', async () => {
    const guildId = newGuildId();
    const stays = await member(realtime);
    const leaves = await member(realtime);
    await join(stays, guildId);
    await join(leaves, guildId);
    await publishEvent(stack, { name: 'GUILD_DELETE', users: [leaves.user.userId], data: { id: guildId } });
    await publishEvent(stack, { name: 'MESSAGE_CREATE', guilds: [guildId], data: { after: 'removal' } });
    await stays.client.next((f) => f.t === 'MESSAGE_CREATE');
    await fence(leaves);
    expect(names(leaves.client)).toEqual(['GUILD_CREATE', 'GUILD_DELETE', 'USER_NOTE_UPDATE']);
    for (const who of [stays, leaves]) who.client.close();
  });

  it('when the guild is deleted (GUILD_DELETE to the guild), then every member gets it and nothing of the guild after', async () => {
    const guildId = newGuildId();
    const members = [await member(realtime), await member(other)];
    for (const who of members) await join(who, guildId);
    await publishEvent(stack, { name: 'GUILD_DELETE', guilds: [guildId], data: { id: guildId } });
    await publishEvent(stack, { name: 'MESSAGE_CREATE', guilds: [guildId], data: { after: 'deletion' } });
    for (const who of members) {
      await who.client.next((f) => f.t === 'GUILD_DELETE');
      await fence(who);
      expect(names(who.client)).toEqual(['GUILD_CREATE', 'GUILD_DELETE', 'USER_NOTE_UPDATE']);
      who.client.close();
    }
  });
});

describe('guild delivery across a resume', () => {
  async function resume(url: string, token: string, sessionId: string, seq: number) {
    const client = await GatewayClient.connect(url);
    await client.next((f) => f.op === 10);
    client.send(6, { token, session_id: sessionId, seq });
    await client.next((f) => f.t === 'RESUMED');
    return client;
  }

  it('when a member resumes on another replica, then the guild events missed are replayed and later ones arrive live', async () => {
    const guildId = newGuildId();
    const erin = await member(realtime);
    await join(erin, guildId);
    erin.client.drop();
    await sleep(50);
    const missed = (await publishEvent(stack, { name: 'MESSAGE_CREATE', guilds: [guildId], data: { missed: true } })).envelope;
    await publishEvent(stack, { name: 'MESSAGE_CREATE', guilds: [newGuildId()], data: { elsewhere: true } });

    const back = await resume(other.url, erin.user.token, erin.sessionId, 2);
    expect(back.dispatches()).toEqual([
      { op: 0, t: 'MESSAGE_CREATE', s: 3, d: missed.data },
      { op: 0, t: 'RESUMED', s: null, d: {} },
    ]);
    await publishEvent(stack, { name: 'MESSAGE_UPDATE', guilds: [guildId], data: { live: true } });
    expect(await back.next((f) => f.t === 'MESSAGE_UPDATE')).toMatchObject({ s: 4, d: { live: true } });
    back.close();
  });

  it('when a user joined and was removed while away, then the replay follows both: the guild’s events in between only', async () => {
    const guildId = newGuildId();
    const frank = await member(realtime);
    frank.client.drop();
    await sleep(50);
    await publishEvent(stack, { name: 'MESSAGE_CREATE', guilds: [guildId], data: { n: 'before join' } });
    await publishEvent(stack, { name: 'GUILD_CREATE', users: [frank.user.userId], data: { id: guildId } });
    await publishEvent(stack, { name: 'MESSAGE_CREATE', guilds: [guildId], data: { n: 'member' } });
    await publishEvent(stack, { name: 'GUILD_DELETE', users: [frank.user.userId], data: { id: guildId } });
    await publishEvent(stack, { name: 'MESSAGE_CREATE', guilds: [guildId], data: { n: 'after removal' } });

    const back = await resume(other.url, frank.user.token, frank.sessionId, 1);
    expect(back.dispatches().map((f) => [f.t, f.d])).toEqual([
      ['GUILD_CREATE', { id: guildId }],
      ['MESSAGE_CREATE', { n: 'member' }],
      ['GUILD_DELETE', { id: guildId }],
      ['RESUMED', {}],
    ]);
    back.close();
  });
});
