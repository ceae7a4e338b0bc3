import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type ServiceClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { api } from './client.js';
import { peopleOnline, portOffset, type Online } from './social.fixtures.js';
import { GatewayClient, type Dispatch } from './ws-client.js';

/** VIEW_CHANNEL (1 << 10). */
const VIEW_CHANNEL = '1024';

let grpc: ServiceClient<typeof GuildsService> | undefined;

/** Guilds' gRPC API, as the invites service calls it to join a user to a guild. */
function guildsGrpc(): ServiceClient<typeof GuildsService> {
  grpc ??= createClient(GuildsService, `127.0.0.1:${50054 + portOffset()}`, 5000);
  return grpc;
}

afterAll(() => grpc?.close());

type Channel = { id: string; name: string };

async function createGuild(owner: Online, name: string): Promise<{ id: string }> {
  const res = await api('POST', '/guilds', { token: owner.token, body: { name } });
  expect(res.status).toBe(201);
  return res.json as { id: string };
}

/** A text channel; `hiddenFromEveryone` denies VIEW_CHANNEL to @everyone (the owner still sees it). */
async function createChannel(owner: Online, guildId: string, name: string, hiddenFromEveryone: boolean): Promise<Channel> {
  const res = await api('POST', `/guilds/${guildId}/channels`, {
    token: owner.token,
    body: {
      name,
      type: 0,
      ...(hiddenFromEveryone ? { permission_overwrites: [{ id: guildId, type: 0, allow: '0', deny: VIEW_CHANNEL }] } : {}),
    },
  });
  expect(res.status).toBe(201);
  return res.json as unknown as Channel;
}

const channelCreate = (channelId: string) => (d: Dispatch) => d.t === 'CHANNEL_CREATE' && d.d.id === channelId;

describe('guild events through the gateway', () => {
  it('when a user joins through AddMember, then GUILD_CREATE (without hidden channels), then CHANNEL_CREATE only for channels they can see', async () => {
    const [owner, bob, carol] = await peopleOnline(3);
    const guild = await createGuild(owner, 'Issue 5 guild');
    const secret = await createChannel(owner, guild.id, 'secret', true);

    const joined = await guildsGrpc().addMember({ guildId: guild.id, userId: bob.id });
    expect(joined.errorCode).toBe(0);
    const isJoin = (d: Dispatch) => d.t === 'GUILD_CREATE' && d.d.id === guild.id;
    await bob.ws.takeThrough(isJoin);
    const guildCreate = bob.ws.dispatches().find(isJoin)!;
    expect(guildCreate.d).toMatchObject({ id: guild.id, name: 'Issue 5 guild' });
    const seenAtJoin = (guildCreate.d.channels as Channel[]).map((c) => c.id);
    expect(seenAtJoin.length).toBeGreaterThan(0);
    expect(seenAtJoin).not.toContain(secret.id);

    // Hidden first, visible second: both go through guilds' outbox in this order, so once the
    // visible one reached bob, the hidden one had its turn before it.
    const hidden = await createChannel(owner, guild.id, 'hidden-new', true);
    const visible = await createChannel(owner, guild.id, 'visible-new', false);
    const beforeVisible = await bob.ws.takeThrough(channelCreate(visible.id));
    expect(beforeVisible.filter((d) => d.t === 'CHANNEL_CREATE')).toEqual([]);
    expect(bob.ws.dispatches().some(channelCreate(hidden.id))).toBe(false);

    // The owner sees both.
    await owner.ws.takeThrough(channelCreate(hidden.id));
    await owner.ws.takeThrough(channelCreate(visible.id));

    // Carol is in no guild of these: a guild of her own, made after, is the first guild event she gets.
    const own = await createGuild(carol, 'Carol’s guild');
    const beforeOwn = await carol.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && d.d.id === own.id);
    expect(beforeOwn).toEqual([]);

    // A new connection of bob's: READY carries the guild with what he can see only.
    const again = await GatewayClient.connect(bob.token);
    const readyGuilds = (again.ready.d as unknown as { guilds: { id: string; channels: Channel[] }[] }).guilds;
    const readyChannels = readyGuilds.find((g) => g.id === guild.id)!.channels.map((c) => c.id);
    expect(readyChannels).toContain(visible.id);
    expect(readyChannels).not.toContain(secret.id);
    expect(readyChannels).not.toContain(hidden.id);
    for (const ws of [owner.ws, bob.ws, carol.ws, again]) ws.close();
  });

  it('when a member is removed, then GUILD_DELETE reaches them and the guild’s later channels do not', async () => {
    const [owner, dana] = await peopleOnline(2);
    const guild = await createGuild(owner, 'Kick guild');
    expect((await guildsGrpc().addMember({ guildId: guild.id, userId: dana.id })).errorCode).toBe(0);
    await dana.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && d.d.id === guild.id);

    expect((await api('DELETE', `/guilds/${guild.id}/members/${dana.id}`, { token: owner.token })).status).toBe(204);
    await dana.ws.takeThrough((d) => d.t === 'GUILD_DELETE' && d.d.id === guild.id);
    const after = await createChannel(owner, guild.id, 'after-kick', false);
    await owner.ws.takeThrough(channelCreate(after.id));
    const own = await createGuild(dana, 'Dana’s guild');
    const beforeOwn = await dana.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && d.d.id === own.id);
    expect(beforeOwn.filter((d) => d.t === 'CHANNEL_CREATE')).toEqual([]);
    for (const ws of [owner.ws, dana.ws]) ws.close();
  });
});
