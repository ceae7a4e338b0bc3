import { DiscordAPIError, type REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userRest } from './client.js';
import { people, type Person } from './social.fixtures.js';

/**
 * Channels, threads, overwrites and DMs through the whole system with the clients real bots use:
 * `@discordjs/rest` for the API and `@discordjs/ws` for the dispatches.
 */

interface Channel {
  id: string;
  type: number;
  name?: string;
  parent_id?: string | null;
  recipients?: { id: string }[];
  permission_overwrites?: { id: string; type: number; allow: string; deny: string }[];
  thread_metadata?: { archived: boolean; locked: boolean };
}

const restFor = (p: Person) => userRest(p.token, { retries: 0 });

/** The error @discordjs/rest throws for a refused request. */
async function refusal(request: Promise<unknown>): Promise<{ status: number; code: number | string }> {
  const err = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DiscordAPIError)) throw new Error(`expected a DiscordAPIError, got ${String(err)}`);
  return { status: err.status, code: err.code };
}

let alice: Person;
let bob: Person;
let carol: Person;

beforeAll(async () => {
  [alice, bob, carol] = await people(3);
});

describe('guild channels through @discordjs/rest', () => {
  let guildId: string;
  let aliceRest: REST;
  let bobRest: REST;

  beforeAll(async () => {
    aliceRest = restFor(alice);
    bobRest = restFor(bob);
    guildId = ((await aliceRest.post('/guilds', { body: { name: 'e2e channels' } })) as { id: string }).id;
  });

  it('when the owner creates a category and a channel in it, then both are listed with the platform shape', async () => {
    const category = (await aliceRest.post(`/guilds/${guildId}/channels`, { body: { name: 'Text', type: 4 } })) as Channel;
    const channel = (await aliceRest.post(`/guilds/${guildId}/channels`, {
      body: { name: 'Off Topic', parent_id: category.id },
    })) as Channel;
    expect(channel).toMatchObject({ type: 0, name: 'off-topic', parent_id: category.id, permission_overwrites: [] });
    const list = (await aliceRest.get(`/guilds/${guildId}/channels`)) as Channel[];
    expect(list.map((c) => c.id)).toEqual(expect.arrayContaining([category.id, channel.id]));
    expect(await aliceRest.get(`/channels/${channel.id}`)).toMatchObject({ id: channel.id, guild_id: guildId });
  });

  it('when a stranger or a bad body comes, then the client sees 50001 for what exists, 10003 and 10004 for what does not, and 50035', async () => {
    const channel = (await aliceRest.post(`/guilds/${guildId}/channels`, { body: { name: 'private' } })) as Channel;
    expect(await refusal(bobRest.get(`/channels/${channel.id}`))).toEqual({ status: 403, code: 50001 });
    expect(await refusal(bobRest.patch(`/channels/${channel.id}`, { body: { name: 'mine' } }))).toEqual({ status: 403, code: 50001 });
    expect(await refusal(bobRest.delete(`/channels/${channel.id}`))).toEqual({ status: 403, code: 50001 });
    expect(await refusal(bobRest.post(`/guilds/${guildId}/channels`, { body: { name: 'x' } }))).toEqual({ status: 403, code: 50001 });
    expect(await refusal(bobRest.get(`/guilds/${guildId}/channels`))).toEqual({ status: 403, code: 50001 });
    const unknownChannel = String(BigInt(channel.id) + 4096n);
    expect(await refusal(bobRest.get(`/channels/${unknownChannel}`))).toEqual({ status: 404, code: 10003 });
    expect(await refusal(aliceRest.get(`/channels/${unknownChannel}`))).toEqual({ status: 404, code: 10003 });
    const unknownGuild = String(BigInt(guildId) + 4096n);
    expect(await refusal(bobRest.post(`/guilds/${unknownGuild}/channels`, { body: { name: 'x' } }))).toEqual({ status: 404, code: 10004 });
    expect(await aliceRest.get(`/channels/${channel.id}`)).toMatchObject({ id: channel.id, name: 'private' });
    expect(await refusal(aliceRest.post(`/guilds/${guildId}/channels`, { body: { name: 'x', type: 3 } }))).toEqual({
      status: 400,
      code: 50035,
    });
  });

  it('when an overwrite hides a channel and a thread is started in it, then the thread carries its metadata', async () => {
    const channel = (await aliceRest.post(`/guilds/${guildId}/channels`, { body: { name: 'staff' } })) as Channel;
    await aliceRest.put(`/channels/${channel.id}/permissions/${guildId}`, { body: { type: 0, deny: '1024' } });
    const seen = (await aliceRest.get(`/channels/${channel.id}`)) as Channel;
    expect(seen.permission_overwrites).toEqual([{ id: guildId, type: 0, allow: '0', deny: '1024' }]);
    const thread = (await aliceRest.post(`/channels/${channel.id}/threads`, { body: { name: 'plans', type: 11 } })) as Channel;
    expect(thread).toMatchObject({ type: 11, parent_id: channel.id, thread_metadata: { archived: false, locked: false } });
    const archived = (await aliceRest.patch(`/channels/${thread.id}`, { body: { archived: true } })) as Channel;
    expect(archived.thread_metadata?.archived).toBe(true);
    const list = (await aliceRest.get(`/channels/${channel.id}/threads/archived/public`)) as { threads: Channel[]; has_more: boolean };
    expect(list.threads.map((t) => t.id)).toEqual([thread.id]);
    expect((await aliceRest.delete(`/channels/${channel.id}`)) as Channel).toMatchObject({ id: channel.id });
  });
});

describe('DMs and group DMs through @discordjs/rest and @discordjs/ws', () => {
  let ws: WebSocketManager;
  const dispatches: { t: string; d: Channel & { channel_id?: string; user?: { id: string } } }[] = [];

  beforeAll(async () => {
    ws = new WebSocketManager({ token: alice.token, intents: 0, rest: restFor(alice) });
    const ready = new Promise((resolve) => ws.once(WebSocketShardEvents.Ready, resolve));
    ws.on(WebSocketShardEvents.Dispatch, (payload) => void dispatches.push(payload as never));
    await ws.connect();
    await ready;
  });
  afterAll(() => ws?.destroy());

  async function dispatched(t: string, id: string) {
    await expect
      .poll(() => dispatches.find((d) => d.t === t && (d.d.id === id || d.d.channel_id === id)), { timeout: 10_000 })
      .toBeDefined();
    return dispatches.find((d) => d.t === t && (d.d.id === id || d.d.channel_id === id))!;
  }

  it('when alice opens a DM with bob, then it is reused, listed, and CHANNEL_CREATE reaches her socket', async () => {
    const rest = restFor(alice);
    const dm = (await rest.post('/users/@me/channels', { body: { recipient_id: bob.id } })) as Channel;
    expect(dm).toMatchObject({ type: 1, recipients: [{ id: bob.id }] });
    expect(((await rest.post('/users/@me/channels', { body: { recipient_id: bob.id } })) as Channel).id).toBe(dm.id);
    expect(((await rest.get('/users/@me/channels')) as Channel[]).map((c) => c.id)).toContain(dm.id);
    expect((await dispatched('CHANNEL_CREATE', dm.id)).d.recipients).toEqual([expect.objectContaining({ id: bob.id })]);
    expect(await refusal(rest.post('/users/@me/channels', { body: { recipient_id: alice.id } }))).toEqual({ status: 400, code: 50007 });
  });

  it('when bob makes a group with alice and adds carol, then alice hears of the group and of carol', async () => {
    const rest = restFor(bob);
    const real = (await rest.post('/users/@me/channels', { body: { recipients: [bob.id, alice.id] } })) as Channel;
    expect(real.type).toBe(3);
    await rest.put(`/channels/${real.id}/recipients/${carol.id}`);
    expect((await dispatched('CHANNEL_CREATE', real.id)).d.type).toBe(3);
    expect((await dispatched('CHANNEL_RECIPIENT_ADD', real.id)).d.user?.id).toBe(carol.id);
    expect(await refusal(restFor(carol).delete(`/channels/${real.id}/recipients/${alice.id}`))).toEqual({ status: 403, code: 50013 });
    await restFor(carol).delete(`/channels/${real.id}/recipients/${carol.id}`);
    expect((await dispatched('CHANNEL_RECIPIENT_REMOVE', real.id)).d.user?.id).toBe(carol.id);
  });
});
