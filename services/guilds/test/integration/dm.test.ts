import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelView } from '@kith/platform';
import { ChannelSystem, type User } from './channels.fixtures.js';

let sys: ChannelSystem;
let grpc: ChannelSystem['grpc'];

beforeAll(async () => {
  sys = await ChannelSystem.start();
  grpc = sys.grpc;
});
afterAll(() => sys?.stop());

const users = (n: number): Promise<User[]> => Promise.all(Array.from({ length: n }, () => sys.user()));
const ids = (list: { id: string }[]) => list.map((u) => u.id).sort();

describe('DMs', () => {
  it('when a DM is opened twice, then the same channel is answered with the other user as its recipient', async () => {
    const [a, b] = await users(2);
    const first = await sys.call(a!, '/users/@me/channels', { json: { recipient_id: b!.id } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ type: 1, recipients: [{ id: b!.id }] });
    const again = await sys.call(b!, '/users/@me/channels', { json: { recipients: [a!.id] } });
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.recipients.map((u: { id: string }) => u.id)).toEqual([a!.id]);
    const event = await sys.event((e) => e.name === 'CHANNEL_CREATE' && e.data.id === first.body.id);
    expect(event.audience).toEqual({ users: [a!.id] });
  });

  it('when both users open their DM at once, many times, then there is one channel', async () => {
    const [a, b] = await users(2);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? sys.call(a!, '/users/@me/channels', { json: { recipient_id: b!.id } })
          : sys.call(b!, '/users/@me/channels', { json: { recipient_id: a!.id } }),
      ),
    );
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
  });

  it('when the DM is with oneself, an unknown user, or the body is bad, then 50007, 10013 and 50035', async () => {
    const [a] = await users(1);
    expect((await sys.call(a!, '/users/@me/channels', { json: { recipient_id: a!.id } })).body.code).toBe(50007);
    expect((await sys.call(a!, '/users/@me/channels', { json: { recipient_id: '42' } })).body.code).toBe(10013);
    expect((await sys.call(a!, '/users/@me/channels', { json: { recipient_id: 'nope' } })).body.code).toBe(50035);
    expect((await sys.raw(a!, 'POST', '/users/@me/channels', '{')).body.code).toBe(50109);
    expect((await sys.call(null, '/users/@me/channels')).status).toBe(401);
  });

  it('when a DM is closed, then it leaves the list and CHANNEL_DELETE reaches the closer; opening it again brings it back', async () => {
    const [a, b] = await users(2);
    const dm = (await sys.call(a!, '/users/@me/channels', { json: { recipient_id: b!.id } })).body;
    expect((await sys.call(a!, '/users/@me/channels')).body.map((c: { id: string }) => c.id)).toContain(dm.id);
    expect((await sys.call(a!, `/channels/${dm.id}`, { method: 'DELETE' })).body.id).toBe(dm.id);
    expect((await sys.event((e) => e.name === 'CHANNEL_DELETE' && e.data.id === dm.id)).audience).toEqual({ users: [a!.id] });
    expect((await sys.call(a!, '/users/@me/channels')).body).toEqual([]);
    expect((await sys.call(b!, `/channels/${dm.id}`)).body.recipients).toEqual([expect.objectContaining({ id: a!.id })]);
    // Closed is not gone: the closer still reads it by id.
    expect((await sys.call(a!, `/channels/${dm.id}`)).body.recipients).toEqual([expect.objectContaining({ id: b!.id })]);
    expect((await grpc.getChannel({ channelId: dm.id })).channel!.recipientIds).toHaveLength(2);
    expect((await sys.call(a!, '/users/@me/channels', { json: { recipient_id: b!.id } })).body.id).toBe(dm.id);
    expect((await sys.call(a!, '/users/@me/channels')).body.map((c: { id: string }) => c.id)).toEqual([dm.id]);
    // Opening it again announces it to the caller again.
    await expect.poll(() => sys.events.filter((e) => e.name === 'CHANNEL_CREATE' && e.data.id === dm.id).length).toBe(2);
  });

  it('when someone outside a DM reads or adds to it, then 50001 Missing Access, as adding to a DM is', async () => {
    const [a, b, c] = await users(3);
    const dm = (await sys.call(a!, '/users/@me/channels', { json: { recipient_id: b!.id } })).body;
    expect((await sys.call(c!, `/channels/${dm.id}`)).body.code).toBe(50001);
    expect((await sys.call(c!, `/channels/${dm.id}/recipients/${c!.id}`, { method: 'PUT' })).body.code).toBe(50001);
    expect((await sys.call(a!, `/channels/${dm.id}/recipients/${c!.id}`, { method: 'PUT' })).body.code).toBe(50001);
  });
});

describe('group DMs', () => {
  it('when a group DM is created, then each recipient hears of it without themself among the recipients', async () => {
    const [a, b, c] = await users(3);
    const res = await sys.call(a!, '/users/@me/channels', { json: { recipients: [b!.id, c!.id] } });
    expect(res.body).toMatchObject({ type: 3, owner_id: a!.id });
    expect(ids(res.body.recipients)).toEqual(ids([b!, c!]));
    const forB = await sys.event((e) => e.name === 'CHANNEL_CREATE' && e.data.id === res.body.id && e.audience.users?.[0] === b!.id);
    expect(ids(forB.data.recipients)).toEqual(ids([a!, c!]));
    expect((await sys.call(c!, '/users/@me/channels')).body.map((ch: { id: string }) => ch.id)).toContain(res.body.id);
  });

  it('when a group would exceed 10 users, then 30004, whether created or added to', async () => {
    const people = await users(11);
    const [owner, ...rest] = people;
    const tooMany = await sys.call(owner!, '/users/@me/channels', { json: { recipients: rest.map((u) => u.id) } });
    expect(tooMany.body.code).toBe(30004);
    const group = (await sys.call(owner!, '/users/@me/channels', { json: { recipients: rest.slice(0, 9).map((u) => u.id) } })).body;
    expect(group.recipients).toHaveLength(9);
    expect((await sys.call(rest[0]!, `/channels/${group.id}/recipients/${rest[9]!.id}`, { method: 'PUT' })).body.code).toBe(30004);
  });

  it('when recipients are added concurrently, then the group never goes over 10', async () => {
    const people = await users(13);
    const [owner, ...rest] = people;
    const group = (await sys.call(owner!, '/users/@me/channels', { json: { recipients: rest.slice(0, 7).map((u) => u.id) } })).body;
    const adds = await Promise.all(
      rest.slice(7).map((u) => sys.call(owner!, `/channels/${group.id}/recipients/${u.id}`, { method: 'PUT' })),
    );
    expect(adds.filter((r) => r.status === 204)).toHaveLength(2);
    expect(adds.filter((r) => r.body.code === 30004)).toHaveLength(3);
    expect((await sys.call(owner!, `/channels/${group.id}`)).body.recipients).toHaveLength(9);
  });

  it('when a recipient adds someone, then the newcomer gets CHANNEL_CREATE and the others CHANNEL_RECIPIENT_ADD', async () => {
    const [a, b, c] = await users(3);
    // One other recipient opens a DM; listing oneself too makes a group of two.
    const dm = (await sys.call(a!, '/users/@me/channels', { json: { recipients: [b!.id] } })).body;
    expect(dm.type).toBe(1);
    const real = (await sys.call(a!, '/users/@me/channels', { json: { recipients: [a!.id, b!.id] } })).body;
    expect(real.type).toBe(3);
    expect((await sys.call(b!, `/channels/${real.id}/recipients/${c!.id}`, { method: 'PUT' })).status).toBe(204);
    const add = await sys.event((e) => e.name === 'CHANNEL_RECIPIENT_ADD' && e.data.channel_id === real.id);
    expect([...(add.audience.users ?? [])].sort()).toEqual(ids([a!, b!]));
    expect(add.data.user.id).toBe(c!.id);
    const created = await sys.event((e) => e.name === 'CHANNEL_CREATE' && e.data.id === real.id && e.audience.users?.[0] === c!.id);
    expect(ids(created.data.recipients)).toEqual(ids([a!, b!]));
    expect((await sys.call(b!, `/channels/${real.id}/recipients/42`, { method: 'PUT' })).body.code).toBe(10013);
  });

  it('when a recipient renames the group, then every recipient hears of it; a DM cannot be renamed', async () => {
    const [a, b, c] = await users(3);
    const group = (await sys.call(a!, '/users/@me/channels', { json: { recipients: [b!.id, c!.id] } })).body;
    const renamed = await sys.call(b!, `/channels/${group.id}`, { method: 'PATCH', json: { name: 'Trip' } });
    expect(renamed.body).toMatchObject({ id: group.id, name: 'Trip', owner_id: a!.id });
    await expect
      .poll(() => sys.events.filter((e) => e.name === 'CHANNEL_UPDATE' && e.data.id === group.id).flatMap((e) => e.audience.users ?? []))
      .toHaveLength(3);
    const dm = (await sys.call(a!, '/users/@me/channels', { json: { recipient_id: b!.id } })).body;
    expect((await sys.call(a!, `/channels/${dm.id}`, { method: 'PATCH', json: { name: 'x' } })).body.code).toBe(50024);
    expect((await sys.call(c!, `/channels/${dm.id}`, { method: 'PATCH', json: { name: 'x' } })).body.code).toBe(50001);
  });

  it('when a non-owner removes another, then 50013; leaving oneself works and the owner can remove anyone', async () => {
    const [a, b, c, d] = await users(4);
    const group = (await sys.call(a!, '/users/@me/channels', { json: { recipients: [b!.id, c!.id, d!.id] } })).body;
    expect((await sys.call(b!, `/channels/${group.id}/recipients/${c!.id}`, { method: 'DELETE' })).body.code).toBe(50013);
    expect((await sys.call(b!, `/channels/${group.id}/recipients/${b!.id}`, { method: 'DELETE' })).status).toBe(204);
    const removed = await sys.event((e) => e.name === 'CHANNEL_RECIPIENT_REMOVE' && e.data.channel_id === group.id);
    expect([...(removed.audience.users ?? [])].sort()).toEqual(ids([a!, c!, d!]));
    expect((await sys.event((e) => e.name === 'CHANNEL_DELETE' && e.data.id === group.id)).audience).toEqual({ users: [b!.id] });
    expect((await sys.call(b!, `/channels/${group.id}`)).body.code).toBe(50001);
    expect((await sys.call(a!, `/channels/${group.id}/recipients/${c!.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await sys.call(a!, `/channels/${group.id}/recipients/${c!.id}`, { method: 'DELETE' })).body.code).toBe(10013);
    // The owner leaving hands the group to the next recipient.
    expect((await sys.call(a!, `/channels/${group.id}`, { method: 'DELETE' })).body.id).toBe(group.id);
    expect((await sys.call(d!, `/channels/${group.id}`)).body).toMatchObject({ owner_id: d!.id, recipients: [] });
  });
});

describe('gRPC', () => {
  it('when other services ask, then GetChannel, AddRecipient and ListChannelViewerIds answer for private channels', async () => {
    const [a, b, c] = await users(3);
    const dm = (await sys.call(a!, '/users/@me/channels', { json: { recipients: [b!.id] } })).body;
    const real = (await sys.call(a!, '/users/@me/channels', { json: { recipients: [a!.id, b!.id] } })).body;
    const got = await grpc.getChannel({ channelId: real.id });
    expect(got.found).toBe(true);
    expect([...got.channel!.recipientIds].sort()).toEqual(ids([a!, b!]));
    expect(got.channel).toMatchObject({ type: 3, guildId: '', ownerId: a!.id });
    expect(got.channel!.recipients.map((u) => u.id).sort()).toEqual(ids([a!, b!]));
    // Rendered for one viewer, the channel is what that viewer's GET /channels/{id} answers.
    expect(channelView(got.channel!, a!.id)).toEqual((await sys.call(a!, `/channels/${real.id}`)).body);
    expect((await grpc.getChannel({ channelId: '1' })).found).toBe(false);
    expect((await grpc.getChannel({ channelId: 'nope' })).found).toBe(false);
    expect((await grpc.addRecipient({ channelId: real.id, userId: '99999999999999999999' })).errorCode).toBe(10013);
    expect((await grpc.listChannelViewerIds({ channelId: '', after: '', limit: 5 })).userIds).toEqual([]);
    const added = await grpc.addRecipient({ channelId: real.id, userId: c!.id });
    expect(added).toMatchObject({ errorCode: 0, alreadyRecipient: false });
    expect((await grpc.addRecipient({ channelId: real.id, userId: c!.id })).alreadyRecipient).toBe(true);
    expect((await grpc.addRecipient({ channelId: dm.id, userId: c!.id })).errorCode).toBe(50001);
    expect((await grpc.addRecipient({ channelId: '1', userId: c!.id })).errorCode).toBe(10003);
    const viewers = await grpc.listChannelViewerIds({ channelId: real.id, after: '', limit: 2 });
    const all = ids([a!, b!, c!]).sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1));
    expect(viewers.userIds).toEqual(all.slice(0, 2));
    expect((await grpc.listChannelViewerIds({ channelId: real.id, after: all[1]!, limit: 2 })).userIds).toEqual([all[2]]);
  });

  it('when a guild channel is private, then ListChannelViewerIds lists only those who see it', async () => {
    const [owner, member, other] = await users(3);
    const guildId = await sys.guild(owner!, [member!, other!]);
    const channel = (
      await sys.call(owner!, `/guilds/${guildId}/channels`, {
        json: { name: 'p', permission_overwrites: [{ id: other!.id, type: 1, deny: '1024' }] },
      })
    ).body;
    const viewers = await grpc.listChannelViewerIds({ channelId: channel.id, after: '', limit: 100 });
    expect([...viewers.userIds].sort()).toEqual(ids([owner!, member!]));
    const thread = (await sys.call(member!, `/channels/${channel.id}/threads`, { json: { name: 't', type: 11 } })).body;
    expect([...(await grpc.listChannelViewerIds({ channelId: thread.id, after: '', limit: 100 })).userIds].sort()).toEqual(
      ids([owner!, member!]),
    );
    const got = await grpc.getChannel({ channelId: thread.id });
    expect(got.channel).toMatchObject({ guildId, parentId: channel.id, type: 11 });
    const event = await sys.event((e) => e.name === 'CHANNEL_CREATE' && e.data.id === channel.id);
    expect([...(event.audience.users ?? [])].sort()).toEqual(ids([owner!, member!]));
  });
});
