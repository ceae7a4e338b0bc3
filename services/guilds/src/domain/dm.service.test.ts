import { describe, expect, it } from 'vitest';
import { code, world } from '../../test/fakes/world.js';
import { MAX_GROUP_DM_RECIPIENTS } from './dm.service.js';
import { ChannelType } from './records.js';

const recipientIds = (channel: Record<string, unknown>) => (channel.recipients as { id: string }[]).map((u) => u.id);

describe('DmService: DMs', () => {
  it('when a user opens a DM, then one channel per pair, shown with the other user; CHANNEL_CREATE only when it was not open', async () => {
    const w = world();
    const [a, b] = [w.user('a'), w.user('b')];
    const first = await w.channels.dms.open(a, { recipient_id: b });
    expect(first).toMatchObject({ type: ChannelType.DM, last_message_id: null });
    expect(recipientIds(first)).toEqual([b]);
    const fromB = await w.channels.dms.open(b, { recipients: [a] });
    expect(fromB.id).toBe(first.id);
    expect(recipientIds(fromB)).toEqual([a]);
    // Opened again while open (by either of them): no event.
    await w.channels.dms.open(a, { recipient_id: b });
    expect(w.store.named('CHANNEL_CREATE').map((e) => e.audience)).toEqual([{ users: [a] }]);
  });

  it('when a user opens a DM with themself or an unknown user, then 50007 and 10013', async () => {
    const w = world();
    const a = w.user();
    expect(await code(w.channels.dms.open(a, { recipient_id: a }))).toBe(50007);
    expect(await code(w.channels.dms.open(a, { recipient_id: '1' }))).toBe(10013);
  });

  it('when a DM is closed, then it leaves the closer’s list (still readable) until they open it again', async () => {
    const w = world();
    const [a, b] = [w.user(), w.user()];
    const dm = (await w.channels.dms.open(a, { recipient_id: b })).id as string;
    await w.channels.delete(a, dm);
    expect(await w.channels.dms.list(a)).toEqual([]);
    expect(await w.channels.get(a, dm)).toMatchObject({ id: dm });
    expect(w.store.named('CHANNEL_DELETE').map((e) => e.audience)).toEqual([{ users: [a] }]);
    await w.channels.dms.open(a, { recipient_id: b });
    expect((await w.channels.dms.list(a)).map((c) => c.id)).toEqual([dm]);
    expect(w.store.named('CHANNEL_CREATE').map((e) => e.audience)).toEqual([{ users: [a] }, { users: [a] }]);
  });

  it('when someone outside a DM reads it, then 50001; renaming a DM is 50024', async () => {
    const w = world();
    const [a, b, c] = [w.user(), w.user(), w.user()];
    const dm = (await w.channels.dms.open(a, { recipient_id: b })).id as string;
    expect(await code(w.channels.get(c, dm))).toBe(50001);
    expect(await code(w.channels.modify(a, dm, { name: 'x' }))).toBe(50024);
  });
});

describe('DmService: group DMs', () => {
  it('when a group is made, then each member hears CHANNEL_CREATE showing the others, the owner first in the group', async () => {
    const w = world();
    const [a, b, c] = [w.user(), w.user(), w.user()];
    const group = await w.channels.dms.open(a, { recipients: [b, c, b] });
    expect(group).toMatchObject({ type: ChannelType.GROUP_DM, owner_id: a, name: null });
    expect(recipientIds(group)).toEqual([b, c]);
    const created = w.store.named('CHANNEL_CREATE');
    expect(created.map((e) => e.audience.users![0])).toEqual([a, b, c]);
    expect(recipientIds(created[1]!.data as Record<string, unknown>)).toEqual([a, c]);
  });

  it(`when a group would hold more than ${MAX_GROUP_DM_RECIPIENTS}, then 30004; a recipient auth does not know, 10013`, async () => {
    const w = world();
    const owner = w.user();
    const ten = Array.from({ length: 10 }, () => w.user());
    expect(await code(w.channels.dms.open(owner, { recipients: ten }))).toBe(30004);
    expect(await code(w.channels.dms.open(owner, { recipients: [ten[0]!, '5'] }))).toBe(10013);
    expect(w.store.named('CHANNEL_CREATE')).toEqual([]);
  });

  it('when a recipient adds someone, then they hear CHANNEL_CREATE and the others CHANNEL_RECIPIENT_ADD; adding them again changes nothing', async () => {
    const w = world();
    const [a, b, c] = [w.user(), w.user(), w.user('newcomer')];
    const group = (await w.channels.dms.open(a, { recipients: [b, a] })).id as string;
    expect(await w.channels.dms.addRecipient(b, group, c)).toMatchObject({ added: true });
    expect(w.store.named('CHANNEL_RECIPIENT_ADD')).toEqual([
      expect.objectContaining({
        audience: { users: [a, b] },
        data: { channel_id: group, user: expect.objectContaining({ id: c, username: 'newcomer' }) },
      }),
    ]);
    expect(await w.channels.dms.addRecipient(a, group, c)).toMatchObject({ added: false });
    expect(w.store.named('CHANNEL_RECIPIENT_ADD')).toHaveLength(1);
  });

  it('when the group is full, the channel a DM, or the actor not in it, then 30004, 50001, 50001; no such channel, 10003', async () => {
    const w = world();
    const owner = w.user();
    const nine = Array.from({ length: 9 }, () => w.user());
    const group = (await w.channels.dms.open(owner, { recipients: nine })).id as string;
    expect(await code(w.channels.dms.addRecipient(owner, group, w.user()))).toBe(30004);
    const dm = (await w.channels.dms.open(owner, { recipient_id: nine[0]! })).id as string;
    expect(await code(w.channels.dms.addRecipient(owner, dm, w.user()))).toBe(50001);
    expect(await code(w.channels.dms.addRecipient(w.user(), group, w.user()))).toBe(50001);
    expect(await code(w.channels.dms.addRecipient(owner, '4242', w.user()))).toBe(10003);
  });

  it('when an invite adds a user (no actor), then they join whoever holds the group', async () => {
    const w = world();
    const [a, b] = [w.user(), w.user()];
    const group = (await w.channels.dms.open(a, { recipients: [a] })).id as string;
    const { channel } = await w.channels.dms.addRecipient(null, group, b);
    expect(channel.recipientIds).toEqual([a, b]);
  });

  it('when the owner leaves, then the longest-standing recipient owns the group and everyone left hears it; the last one out deletes it', async () => {
    const w = world();
    const [a, b, c] = [w.user(), w.user(), w.user()];
    const group = (await w.channels.dms.open(a, { recipients: [b, c] })).id as string;
    await w.channels.delete(a, group);
    expect((await w.store.channels.get(group))!.owner_id).toBe(b);
    expect(w.store.named('CHANNEL_RECIPIENT_REMOVE')).toEqual([expect.objectContaining({ audience: { users: [b, c] } })]);
    expect(w.store.named('CHANNEL_UPDATE').map((e) => e.audience.users![0])).toEqual([b, c]);
    await w.channels.dms.removeRecipient(b, group, c);
    await w.channels.delete(b, group);
    expect(await w.store.channels.get(group)).toBeUndefined();
  });

  it('when a recipient removes another, then only the owner may; removing someone not in it is 10013', async () => {
    const w = world();
    const [a, b, c] = [w.user(), w.user(), w.user()];
    const group = (await w.channels.dms.open(a, { recipients: [b, c] })).id as string;
    expect(await code(w.channels.dms.removeRecipient(b, group, c))).toBe(50013);
    expect(await code(w.channels.dms.removeRecipient(a, group, w.user()))).toBe(10013);
    await w.channels.dms.removeRecipient(a, group, c);
    expect(await w.store.dms.participants((await w.store.channels.get(group))!)).toEqual([a, b]);
  });

  it('when a recipient renames the group, then each one hears CHANNEL_UPDATE; a blank name clears it', async () => {
    const w = world();
    const [a, b] = [w.user(), w.user()];
    const group = (await w.channels.dms.open(a, { recipients: [b, a] })).id as string;
    expect(await w.channels.modify(b, group, { name: ' Trip ' })).toMatchObject({ name: 'Trip' });
    expect(w.store.named('CHANNEL_UPDATE')).toHaveLength(2);
    expect(await w.channels.modify(b, group, { name: '  ' })).toMatchObject({ name: null });
  });
});

describe('ChannelApi: other services', () => {
  it('when other services describe a group DM, then every recipient is named; viewers are its recipients in id order', async () => {
    const w = world();
    const [a, b, c] = [w.user(), w.user(), w.user()];
    const group = (await w.channels.dms.open(a, { recipients: [c, b] })).id as string;
    expect(await w.channels.describe(group)).toMatchObject({ id: group, ownerId: a, recipientIds: [a, c, b] });
    expect(await w.channels.viewerIds(group)).toEqual([a, b, c]);
    expect(await w.channels.describe('1')).toBeUndefined();
  });

  it('when viewers of guild channels are asked, then members who see it; of a private thread, its creator and moderators', async () => {
    const w = world();
    const owner = w.user();
    const member = w.user();
    const other = w.user();
    const guildId = await w.guild(owner);
    await w.join(guildId, member, other);
    const [general] = await w.store.channels.listInGuild(guildId);
    expect(await w.channels.viewerIds(general!.id)).toEqual([owner, member, other]);
    const thread = (await w.channels.threads.create(member, general!.id, { name: 'p' })).id as string;
    expect(await w.channels.viewerIds(thread)).toEqual([owner, member]);
  });
});
