import { describe, expect, it } from 'vitest';
import { code, fieldErrors, world, type World } from '../../test/fakes/world.js';
import { Permission } from './permissions.js';
import { ChannelType } from './records.js';

async function guild(w: World) {
  const owner = w.user();
  const member = w.user();
  const other = w.user();
  const guildId = await w.guild(owner);
  await w.join(guildId, member, other);
  const [general] = await w.store.channels.listInGuild(guildId);
  return { owner, member, other, guildId, general: general!.id };
}

describe('ThreadService.create', () => {
  it('when a member starts a public thread, then it has metadata and counts, and THREAD_CREATE (newly created) goes to who sees the channel', async () => {
    const w = world();
    const g = await guild(w);
    const thread = await w.channels.threads.create(g.member, g.general, {
      name: ' plans ',
      type: ChannelType.PUBLIC_THREAD,
      auto_archive_duration: 60,
    });
    expect(thread).toMatchObject({ type: 11, name: 'plans', parent_id: g.general, owner_id: g.member, message_count: 0, member_count: 1 });
    expect(thread.thread_metadata).toMatchObject({ archived: false, locked: false, auto_archive_duration: 60 });
    expect('invitable' in (thread.thread_metadata as object)).toBe(false);
    const [created] = w.store.named('THREAD_CREATE');
    expect(created).toMatchObject({ audience: { guilds: [g.guildId] }, data: { id: thread.id, newly_created: true } });
  });

  it('when no type is asked in a text channel, then a private thread, seen only by its creator and moderators', async () => {
    const w = world();
    const g = await guild(w);
    const thread = await w.channels.threads.create(g.member, g.general, { name: 'secret' });
    expect(thread).toMatchObject({ type: ChannelType.PRIVATE_THREAD, thread_metadata: { invitable: true } });
    expect([...w.store.named('THREAD_CREATE')[0]!.audience.users!].sort()).toEqual([g.owner, g.member].sort());
    expect(await code(w.channels.get(g.other, thread.id as string))).toBe(50001);
    expect(await w.channels.get(g.owner, thread.id as string)).toMatchObject({ id: thread.id });
    expect((await w.channels.threads.active(g.other, g.guildId)).threads).toEqual([]);
    expect((await w.channels.threads.active(g.member, g.guildId)).threads).toEqual([expect.objectContaining({ id: thread.id })]);
  });

  it('when a thread is asked in an announcement channel, then it is an announcement thread; a private one there is 50024', async () => {
    const w = world();
    const g = await guild(w);
    const news = (await w.channels.channels.create(g.owner, g.guildId, { name: 'news', type: ChannelType.GUILD_ANNOUNCEMENT }))
      .id as string;
    expect(await w.channels.threads.create(g.owner, news, { name: 'a', type: ChannelType.PUBLIC_THREAD })).toMatchObject({
      type: ChannelType.ANNOUNCEMENT_THREAD,
    });
    expect(await code(w.channels.threads.create(g.owner, news, { name: 'b', type: ChannelType.PRIVATE_THREAD }))).toBe(50024);
  });

  it('when a forum post has no message, then 50035; with one, a public thread with applied tags', async () => {
    const w = world();
    const g = await guild(w);
    const forum = (await w.channels.channels.create(g.owner, g.guildId, { name: 'forum', type: ChannelType.GUILD_FORUM })).id as string;
    expect(await fieldErrors(w.channels.threads.create(g.member, forum, { name: 'post' }))).toHaveProperty('message');
    expect(await w.channels.threads.create(g.member, forum, { name: 'post', message: { content: 'hi' } })).toMatchObject({
      type: 11,
      applied_tags: [],
    });
  });

  it('when the parent is a voice channel or a thread, then 50024; without CREATE_PUBLIC_THREADS, 50013', async () => {
    const w = world();
    const g = await guild(w);
    const voice = (await w.channels.channels.create(g.owner, g.guildId, { name: 'v', type: ChannelType.GUILD_VOICE })).id as string;
    expect(await code(w.channels.threads.create(g.owner, voice, { name: 't', type: 11 }))).toBe(50024);
    const thread = (await w.channels.threads.create(g.owner, g.general, { name: 't', type: 11 })).id as string;
    expect(await code(w.channels.threads.create(g.owner, thread, { name: 't', type: 11 }))).toBe(50024);
    await w.roles.update(g.owner, g.guildId, g.guildId, { permissions: Permission.VIEW_CHANNEL });
    expect(await code(w.channels.threads.create(g.member, g.general, { name: 't', type: 11 }))).toBe(50013);
  });
});

describe('ThreadService.modify and delete', () => {
  it("when the thread's creator renames or archives it, then it changes; locking it takes MANAGE_THREADS", async () => {
    const w = world();
    const g = await guild(w);
    const thread = (await w.channels.threads.create(g.member, g.general, { name: 't', type: 11 })).id as string;
    expect(await w.channels.modify(g.member, thread, { name: 'renamed', archived: true })).toMatchObject({
      name: 'renamed',
      thread_metadata: { archived: true },
    });
    expect(await code(w.channels.modify(g.member, thread, { locked: true }))).toBe(50013);
    expect(await code(w.channels.modify(g.other, thread, { name: 'x' }))).toBe(50013);
    expect(await w.channels.modify(g.owner, thread, { locked: true })).toMatchObject({ thread_metadata: { locked: true } });
    // A locked thread stays closed to its creator.
    expect(await code(w.channels.modify(g.member, thread, { archived: false }))).toBe(50013);
    expect(w.store.named('THREAD_UPDATE')).toHaveLength(2);
  });

  it('when a thread is deleted, then MANAGE_THREADS is needed and THREAD_DELETE carries only its ids', async () => {
    const w = world();
    const g = await guild(w);
    const thread = (await w.channels.threads.create(g.member, g.general, { name: 't', type: 11 })).id as string;
    expect(await code(w.channels.delete(g.member, thread))).toBe(50013);
    await w.channels.delete(g.owner, thread);
    expect(w.store.named('THREAD_DELETE')[0]!.data).toEqual({ id: thread, guild_id: g.guildId, parent_id: g.general, type: 11 });
    expect(await w.store.channels.get(thread)).toBeUndefined();
  });

  it('when the parent channel is deleted, then its threads go with it', async () => {
    const w = world();
    const g = await guild(w);
    const text = (await w.channels.channels.create(g.owner, g.guildId, { name: 'text' })).id as string;
    const thread = (await w.channels.threads.create(g.owner, text, { name: 't', type: 11 })).id as string;
    await w.channels.delete(g.owner, text);
    expect(await w.store.channels.get(thread)).toBeUndefined();
  });
});

describe('ThreadService: listings', () => {
  it('when archived public threads are listed, then newest archive first, before a time, with has_more; READ_MESSAGE_HISTORY is needed', async () => {
    const w = world();
    const g = await guild(w);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const id = (await w.channels.threads.create(g.owner, g.general, { name, type: 11 })).id as string;
      await w.channels.modify(g.owner, id, { archived: true });
      ids.push(id);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const page = await w.channels.threads.archivedPublic(g.member, g.general, undefined, 2);
    expect(page.threads.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);
    expect((await w.channels.threads.active(g.member, g.guildId)).threads).toEqual([]);
    await w.roles.update(g.owner, g.guildId, g.guildId, { permissions: Permission.VIEW_CHANNEL });
    expect(await code(w.channels.threads.archivedPublic(g.member, g.general, undefined, 2))).toBe(50013);
  });
});

describe('ThreadService for webhooks', () => {
  it('when a webhook starts a forum post, then a public thread with the given id, owner and tags, and THREAD_CREATE', async () => {
    const w = world();
    const g = await guild(w);
    const forum = (await w.channels.channels.create(g.owner, g.guildId, { name: 'forum', type: ChannelType.GUILD_FORUM })).id as string;
    const threadId = w.ids.next();
    expect(
      await w.channels.threads.startForWebhook({ parentId: forum, threadId, name: ' post ', appliedTags: [], ownerId: '424242' }),
    ).toEqual({
      errorCode: 0,
      threadId,
    });
    expect(await w.channels.get(g.member, threadId)).toMatchObject({ type: 11, name: 'post', parent_id: forum, owner_id: '424242' });
    expect(w.store.named('THREAD_CREATE')[0]).toMatchObject({ data: { id: threadId, newly_created: true } });
    expect(
      (await w.channels.threads.startForWebhook({ parentId: g.general, threadId: w.ids.next(), name: 'x', appliedTags: [], ownerId: '1' }))
        .errorCode,
    ).toBe(50024);
  });

  it('when a webhook posts into an archived thread, then it is unarchived unless locked (50083)', async () => {
    const w = world();
    const g = await guild(w);
    const thread = (await w.channels.threads.create(g.owner, g.general, { name: 't', type: ChannelType.PUBLIC_THREAD })).id as string;
    await w.channels.modify(g.owner, thread, { archived: true });
    expect(await w.channels.threads.unarchiveForWebhook(thread)).toBe(0);
    expect(await w.channels.get(g.owner, thread)).toMatchObject({ thread_metadata: { archived: false } });
    await w.channels.modify(g.owner, thread, { archived: true, locked: true });
    expect(await w.channels.threads.unarchiveForWebhook(thread)).toBe(50083);
    expect(await w.channels.threads.unarchiveForWebhook(g.guildId)).toBe(10003);
  });
});
