import { describe, expect, it } from 'vitest';
import { ApiError } from '@kith/platform';
import { FakeGuilds, FakeUsers, MemoryMessages, MemoryWebhooks, ids, vault } from '../../test/fakes/world.js';
import { executeSchema } from './message.input.js';
import { MessagesService } from './messages.service.js';
import { WebhooksService } from './webhooks.service.js';

async function world() {
  const guilds = new FakeGuilds();
  const users = new FakeUsers();
  users.known.set('11', { id: '11', username: 'bo' });
  guilds.addChannel({ id: '100', guildId: '10' });
  guilds.addChannel({ id: '110', guildId: '10', type: 11, parentId: '100', archived: true });
  guilds.addChannel({ id: '111', guildId: '10', type: 11, parentId: '100', archived: true, locked: true });
  guilds.addChannel({ id: '300', guildId: '10', type: 15, tagIds: ['31', '32'] });
  guilds.grant('1', '10');
  guilds.viewers.set('100', ['1', '11']);
  guilds.roles.set('10', new Set(['21']));
  const webhooks = new WebhooksService({ store: new MemoryWebhooks(), guilds, users, vault, ids, apiUrl: 'http://edge/api' });
  const store = new MemoryMessages();
  const messages = new MessagesService({ store, guilds, users, ids });
  const made = await webhooks.create('1', '100', { name: 'hook' });
  const forumMade = await webhooks.create('1', '300', { name: 'forum hook' });
  return {
    guilds,
    store,
    messages,
    webhook: await webhooks.withToken(made.id, made.token!),
    forumHook: await webhooks.withToken(forumMade.id, forumMade.token!),
  };
}

const input = (body: unknown) => executeSchema.parse(body);

async function code(p: Promise<unknown>): Promise<number> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err.body.code;
}

describe('MessagesService', () => {
  it('when executed, then nothing is written before commit, and commit writes the message with MESSAGE_CREATE to the viewers', async () => {
    const { store, messages, webhook } = await world();
    const prepared = await messages.prepare(
      webhook,
      input({ content: 'hi <@11> <@12> <@&21> <@&22>', embeds: [{ title: 't', type: 'video' }] }),
    );
    expect(store.rows.size).toBe(0);
    const view = await prepared.commit();
    expect(view).toMatchObject({ content: 'hi <@11> <@12> <@&21> <@&22>', mention_roles: ['21'], embeds: [{ type: 'rich', title: 't' }] });
    expect(view.mentions).toEqual([{ id: '11', username: 'bo' }]);
    expect(store.events).toHaveLength(1);
    expect(store.events[0]).toMatchObject({
      name: 'MESSAGE_CREATE',
      audience: { users: ['1', '11'] },
      data: { id: view.id, guild_id: '10' },
    });
  });

  it('when the message is empty or its embeds exceed 6000 characters together, then 50006 and 50035', async () => {
    const { messages, webhook } = await world();
    expect(await code(messages.prepare(webhook, input({})))).toBe(50006);
    expect(
      await code(messages.prepare(webhook, input({ embeds: [{ description: 'x'.repeat(4000) }, { description: 'y'.repeat(2001) }] }))),
    ).toBe(50035);
  });

  it('when posted into an archived thread, then it is unarchived; a locked one is 50083; a thread of another channel 10003', async () => {
    const { guilds, messages, webhook } = await world();
    const view = await (await messages.prepare(webhook, input({ content: 'x' }), { threadId: '110' })).commit();
    expect(view.channel_id).toBe('110');
    expect(guilds.unarchived).toEqual(['110']);
    expect(await code(messages.prepare(webhook, input({ content: 'x' }), { threadId: '111' }))).toBe(50083);
    expect(await code(messages.prepare(webhook, input({ content: 'x' }), { threadId: '100' }))).toBe(10003);
  });

  it('when posted to a forum, then thread_name starts a post whose id is the message id, with known tags only', async () => {
    const { guilds, messages, forumHook } = await world();
    expect(await code(messages.prepare(forumHook, input({ content: 'x' })))).toBe(220001);
    expect(await code(messages.prepare(forumHook, input({ content: 'x', thread_name: 'post', applied_tags: ['99'] })))).toBe(50035);
    const view = await (await messages.prepare(forumHook, input({ content: 'x', thread_name: 'post', applied_tags: ['31'] }))).commit();
    expect(view.channel_id).toBe(view.id);
    expect(guilds.started).toEqual([{ channelId: '300', threadId: view.id, name: 'post', appliedTags: ['31'], ownerId: forumHook.id }]);
  });

  it('when edited, then content and mentions are rebuilt, attachments keep only the listed ones, and MESSAGE_UPDATE follows', async () => {
    const { store, messages, webhook } = await world();
    const file = { index: '0', key: 'k', attachment: { id: '77', filename: 'a.txt', size: 1, url: 'u', proxy_url: 'u' } };
    const sent = await (await messages.prepare(webhook, input({ content: '<@11>' }), { files: [file] })).commit();
    const edited = await messages.edit(webhook, sent.id as string, { content: 'plain', attachments: [] });
    expect(edited).toMatchObject({ content: 'plain', mentions: [], attachments: [] });
    expect(edited.edited_timestamp).not.toBeNull();
    expect(store.events.map((e) => e.name)).toEqual(['MESSAGE_CREATE', 'MESSAGE_UPDATE']);
  });

  it('when a message is not this webhook’s, then 10008 for get, edit and delete', async () => {
    const { messages, webhook, forumHook } = await world();
    const sent = await (await messages.prepare(webhook, input({ content: 'mine' }))).commit();
    expect(await code(messages.get(forumHook, sent.id as string))).toBe(10008);
    expect(await code(messages.edit(forumHook, sent.id as string, { content: 'x' }))).toBe(10008);
    expect(await code(messages.delete(forumHook, sent.id as string))).toBe(10008);
    expect(await code(messages.get(webhook, sent.id as string, '110'))).toBe(10008);
    await messages.delete(webhook, sent.id as string);
    expect(await code(messages.get(webhook, sent.id as string))).toBe(10008);
  });
});
