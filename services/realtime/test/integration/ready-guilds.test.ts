import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ServiceClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { call, startTestGateway } from '../../../../gateway/test/integration/harness.js';
import { startGuilds, type RunningGuilds } from '../../../guilds/src/app.js';
import { guildsConfigSchema } from '../../../guilds/src/config.js';
import { GatewayClient } from './gateway.client.js';
import { newUser, publishEvent, startStack, startTestRealtime, stopAll, stopStack, type RealtimeUnderTest, type Stack } from './harness.js';
import { testDbPrefix } from '@kith/platform/testing';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

let stack: Stack;
let guilds: RunningGuilds;
let edge: Awaited<ReturnType<typeof startTestGateway>>;
let grpc: ServiceClient<typeof GuildsService>;
let realtime: RealtimeUnderTest;

beforeAll(async () => {
  stack = await startStack();
  // The real guilds service in this process, on its own database (kith_test_rt_guilds), its
  // events going through its outbox to the same stream realtime reads.
  guilds = await startGuilds(
    guildsConfigSchema.parse({
      ...stack.under.stores,
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      DB_PREFIX: testDbPrefix('rt'),
      LOG_LEVEL: 'silent',
      INTERNAL_TOKEN_PUBLIC_KEY: stack.under.keys.publicKey,
      AUTH_GRPC_ADDR: `127.0.0.1:${stack.under.auth.grpcPort}`,
    }),
  );
  edge = await startTestGateway(stack.under, { GUILDS_HTTP_URL: `http://127.0.0.1:${guilds.httpPort}` });
  grpc = createClient(GuildsService, `127.0.0.1:${guilds.grpcPort}`, 10_000);
  realtime = await startTestRealtime(stack, { GUILDS_GRPC_ADDR: `127.0.0.1:${guilds.grpcPort}` });
});

afterAll(async () => {
  grpc?.close();
  await stopStack(stack);
  await stopAll(edge?.closers, guilds?.closers);
});

const api = (token: string, method: 'POST' | 'PATCH', path: string, json: unknown) =>
  call<Body>(edge.base, `/api/v9${path}`, { method, token, json });

async function createGuild(token: string, name: string): Promise<Body> {
  const res = await api(token, 'POST', '/guilds', { name });
  expect(res.status).toBe(201);
  return res.body;
}

/** A marker sent to the user alone; once it arrives, every earlier event was dispatched to the socket or was not theirs. */
async function fence(client: GatewayClient, userId: string) {
  const marker = randomUUID();
  await publishEvent(stack, { name: 'USER_NOTE_UPDATE', users: [userId], data: { marker } });
  await client.next((f) => (f.d as { marker?: string }).marker === marker);
}

describe('READY and guild events with the guilds service', () => {
  it('when a user in a guild identifies, then READY carries the guild (with its channels and roles) and its events reach the socket', async () => {
    const owner = await newUser(stack);
    const guild = await createGuild(owner.token, 'Ready guild');
    const { client, ready } = await GatewayClient.ready(realtime.url, owner.token);
    const readyGuilds = ready.guilds as Body[];
    expect(readyGuilds).toHaveLength(1);
    expect(readyGuilds[0]).toMatchObject({ id: guild.id, name: 'Ready guild', owner_id: owner.userId });
    expect(readyGuilds[0].channels.length).toBeGreaterThan(0);
    expect(readyGuilds[0].roles.map((r: Body) => r.id)).toContain(guild.id);
    expect(ready.private_channels).toEqual([]);

    expect((await api(owner.token, 'PATCH', `/guilds/${guild.id}`, { name: 'Renamed' })).status).toBe(200);
    expect((await client.next((f) => f.t === 'GUILD_UPDATE')).d).toMatchObject({ id: guild.id, name: 'Renamed' });
    client.close();
  });

  it('when a connected user is added through AddMember, then GUILD_CREATE, then the guild’s events; once removed, none', async () => {
    const owner = await newUser(stack);
    const guild = await createGuild(owner.token, 'Joinable');
    const bob = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(realtime.url, bob.token);
    expect(ready.guilds).toEqual([]);

    expect((await grpc.addMember({ guildId: guild.id, userId: bob.userId })).errorCode).toBe(0);
    expect((await client.next((f) => f.t === 'GUILD_CREATE')).d).toMatchObject({ id: guild.id, name: 'Joinable' });
    await api(owner.token, 'PATCH', `/guilds/${guild.id}`, { name: 'Joined' });
    expect((await client.next((f) => f.t === 'GUILD_UPDATE')).d).toMatchObject({ id: guild.id, name: 'Joined' });

    expect((await grpc.removeMember({ guildId: guild.id, userId: bob.userId })).removed).toBe(true);
    expect((await client.next((f) => f.t === 'GUILD_DELETE')).d).toMatchObject({ id: guild.id });
    await api(owner.token, 'PATCH', `/guilds/${guild.id}`, { name: 'Without bob' });
    await fence(client, bob.userId);
    expect(client.dispatches().filter((f) => f.t === 'GUILD_UPDATE')).toHaveLength(1);
    client.close();
  });
});
