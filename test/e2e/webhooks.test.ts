import { WebhookClient, parseWebhookURL, EmbedBuilder, DiscordAPIError } from 'discord.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api, fieldCode } from './client.js';
import { online, people, type Person } from './social.fixtures.js';
import { createChannel, createGuild, createWebhook, eventually, join, type Webhook } from './webhooks.fixtures.js';

/** Webhooks through the whole system: managed with a user's token, used with the webhook's own. */

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let owner: Person;
let member: Person;
let stranger: Person;
let guildId: string;
let channelId: string;

beforeAll(async () => {
  [owner, member, stranger] = await people(3);
  guildId = await createGuild(owner);
  channelId = (await createChannel(owner, guildId, 'hooks')).id;
  await join(guildId, member);
});

describe('managing webhooks with a user token', () => {
  it('when the owner creates a webhook, then it has a 68-character token and an execution URL that WebhookClient parses', async () => {
    const webhook = await createWebhook(owner, channelId);
    expect(webhook).toMatchObject({
      type: 1,
      guild_id: guildId,
      channel_id: channelId,
      name: 'Captain Hook',
      avatar: null,
      application_id: null,
    });
    expect(webhook.user?.id).toBe(owner.id);
    expect(webhook.token).toMatch(/^[A-Za-z0-9_-]{68}$/);
    expect(webhook.url).toBe(`${inject('gatewayOrigin')}/api/webhooks/${webhook.id}/${webhook.token}`);
    // discord.js takes the platform's host only; the path and token are what it checks.
    const path = new URL(webhook.url!).pathname;
    expect(parseWebhookURL(`https://discord.com${path}`)).toEqual({ id: webhook.id, token: webhook.token });
  });

  it('when listed by channel and by guild and read by id, then managers see the token and the creator', async () => {
    const webhook = await createWebhook(owner, channelId, 'listed');
    const byChannel = await api('GET', `/channels/${channelId}/webhooks`, { token: owner.token });
    const byGuild = await api('GET', `/guilds/${guildId}/webhooks`, { token: owner.token });
    const byId = await api('GET', `/webhooks/${webhook.id}`, { token: owner.token });
    expect((byChannel.json as unknown as Webhook[]).find((w) => w.id === webhook.id)).toMatchObject({ token: webhook.token });
    expect((byGuild.json as unknown as Webhook[]).map((w) => w.id)).toContain(webhook.id);
    expect(byId.json).toMatchObject({ id: webhook.id, token: webhook.token, user: { id: owner.id } });
  });

  it('when modified by id, then name, avatar hash and channel change, and a move to another guild is refused', async () => {
    const webhook = await createWebhook(owner, channelId, 'before');
    const other = await createChannel(owner, guildId, 'elsewhere');
    const res = await api('PATCH', `/webhooks/${webhook.id}`, {
      token: owner.token,
      body: { name: 'after', avatar: PNG, channel_id: other.id },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'after', channel_id: other.id });
    expect(res.json.avatar).toMatch(/^[0-9a-f]{32}$/);
    const otherGuild = await createGuild(owner, 'another');
    const foreign = await createChannel(owner, otherGuild, 'foreign');
    const moved = await api('PATCH', `/webhooks/${webhook.id}`, { token: owner.token, body: { channel_id: foreign.id } });
    expect(moved.status).toBe(400);
    expect(fieldCode(moved.json, 'channel_id')).toBeDefined();
  });

  it('when a member without MANAGE_WEBHOOKS, a stranger or nobody asks, then 50013, 10003/10004/10015 and 401', async () => {
    const webhook = await createWebhook(owner, channelId);
    expect((await api('POST', `/channels/${channelId}/webhooks`, { token: member.token, body: { name: 'x' } })).json.code).toBe(50013);
    expect((await api('GET', `/webhooks/${webhook.id}`, { token: member.token })).json.code).toBe(50013);
    expect((await api('GET', `/guilds/${guildId}/webhooks`, { token: member.token })).json.code).toBe(50013);
    expect((await api('POST', `/channels/${channelId}/webhooks`, { token: stranger.token, body: { name: 'x' } })).json.code).toBe(10003);
    expect((await api('GET', `/guilds/${guildId}/webhooks`, { token: stranger.token })).json.code).toBe(10004);
    expect((await api('DELETE', `/webhooks/${webhook.id}`, { token: stranger.token })).json.code).toBe(10015);
    expect((await api('GET', `/webhooks/${webhook.id}`)).status).toBe(401);
  });

  it('when the name is bad, then 50035 on name and nothing is created', async () => {
    for (const name of ['', 'x'.repeat(81), 'my Discord bot', 'CLYDE']) {
      const res = await api('POST', `/channels/${channelId}/webhooks`, { token: owner.token, body: { name } });
      expect(res.status).toBe(400);
      expect(fieldCode(res.json, 'name')).toBeDefined();
    }
    const bad = await api('POST', `/channels/${channelId}/webhooks`, { token: owner.token, raw: '{"name": ' });
    expect(bad.json.code).toBe(50109);
  });

  it('when 20 webhooks are created at once in a fresh channel, then exactly 15 exist and the rest are 30007', async () => {
    const fresh = await createChannel(owner, guildId, 'crowded');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api('POST', `/channels/${fresh.id}/webhooks`, { token: owner.token, body: { name: `hook ${i}` } }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(15);
    expect(answers.filter((a) => a.status === 400).map((a) => a.json.code)).toEqual(Array(5).fill(30007));
    expect((await api('GET', `/channels/${fresh.id}/webhooks`, { token: owner.token })).json).toHaveLength(15);
  });
});

describe('using a webhook with its token', () => {
  it('when read, modified and deleted with the token, then no user is shown and channel_id is refused', async () => {
    const webhook = await createWebhook(owner, channelId);
    const path = `/webhooks/${webhook.id}/${webhook.token}`;
    const got = await api('GET', path);
    expect(got.status).toBe(200);
    expect(got.json.user).toBeUndefined();
    expect(got.json).toMatchObject({ id: webhook.id, name: 'Captain Hook' });
    const renamed = await api('PATCH', path, { body: { name: 'renamed' } });
    expect(renamed.json).toMatchObject({ name: 'renamed' });
    expect(renamed.json.user).toBeUndefined();
    const move = await api('PATCH', path, { body: { channel_id: channelId } });
    expect(move.status).toBe(400);
    expect(fieldCode(move.json, 'channel_id')).toBeDefined();
    expect((await api('DELETE', path)).status).toBe(204);
    expect((await api('GET', path)).json.code).toBe(10015);
  });

  it('when the token is wrong or the webhook unknown, then 50027 and 10015', async () => {
    const webhook = await createWebhook(owner, channelId);
    const wrong = `${webhook.token!.slice(0, -1)}${webhook.token!.endsWith('A') ? 'B' : 'A'}`;
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE'], ['POST', { content: 'x' }]] as const) {
      const res = await api(method, `/webhooks/${webhook.id}/${wrong}`, body ? { body } : {});
      expect(res.status).toBe(401);
      expect(res.json.code).toBe(50027);
    }
    expect((await api('GET', `/webhooks/${webhook.id}/not-a-token!`)).json.code).toBe(50027);
    expect((await api('POST', `/webhooks/1${webhook.id.slice(1, -1)}9/${webhook.token}`, { body: { content: 'x' } })).json.code).toBe(
      10015,
    );
    // A wrong token with a bad body is still the token's error: nothing is read before the token matches.
    expect((await api('PATCH', `/webhooks/${webhook.id}/${wrong}`, { body: { name: '' } })).json.code).toBe(50027);
  });

  it('when executed with wait=true, then the message object comes back; without wait, a 204', async () => {
    const webhook = await createWebhook(owner, channelId);
    const path = `/webhooks/${webhook.id}/${webhook.token}`;
    const res = await api('POST', `${path}?wait=true`, {
      body: {
        content: `hi <@${member.id}> and @everyone`,
        username: 'Override',
        avatar_url: 'https://example.com/a.png',
        embeds: [{ title: 'T', type: 'video', provider: { name: 'x' }, image: { url: 'https://example.com/i.png', width: 5 } }],
        allowed_mentions: { parse: ['users'] },
        flags: 4096,
      },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      type: 0,
      channel_id: channelId,
      webhook_id: webhook.id,
      author: { id: webhook.id, username: 'Override', bot: true },
      embeds: [{ type: 'rich', title: 'T', image: { url: 'https://example.com/i.png' } }],
      mention_everyone: false,
      flags: 4096,
    });
    expect((res.json.mentions as { id: string }[]).map((u) => u.id)).toEqual([member.id]);
    expect((res.json.embeds as object[])[0]).not.toHaveProperty('provider');
    const noWait = await api('POST', path, { body: { content: 'fire and forget' } });
    expect(noWait.status).toBe(204);
    expect(noWait.headers.get('content-type')).toBeNull();
  });

  it('when the body breaks the limits, then the platform errors and no message', async () => {
    const webhook = await createWebhook(owner, channelId);
    const path = `/webhooks/${webhook.id}/${webhook.token}?wait=true`;
    const cases: [unknown, number, string?][] = [
      [{}, 50006],
      [{ content: '' }, 50006],
      [{ content: 'x'.repeat(2001) }, 50035, 'content'],
      [{ embeds: Array.from({ length: 11 }, () => ({ title: 't' })) }, 50035, 'embeds'],
      [{ embeds: [{ description: 'x'.repeat(4000) }, { description: 'x'.repeat(2001) }] }, 50035, 'embeds'],
      [{ embeds: [{ title: 'x'.repeat(257) }] }, 50035, 'embeds'],
      [{ content: 'x', flags: 1 }, 50035, 'flags'],
      [{ content: 'x', username: 'discord' }, 50035, 'username'],
      [{ content: 'x', allowed_mentions: { parse: ['users'], users: [member.id] } }, 50035, 'allowed_mentions'],
      [{ content: 'x', thread_name: 'not a forum' }, 220003],
    ];
    for (const [body, code, field] of cases) {
      const res = await api('POST', path, { body });
      expect(res.json.code, JSON.stringify(body).slice(0, 80)).toBe(code);
      if (field) expect(res.json.errors?.[field], field).toBeDefined();
    }
    expect((await api('POST', path, { raw: '{"content": "x"' })).json.code).toBe(50109);
  });

  it('when components come to an incoming webhook, then interactive ones are refused with with_components', async () => {
    const webhook = await createWebhook(owner, channelId);
    const button = { type: 1, components: [{ type: 2, style: 1, label: 'click', custom_id: 'c' }] };
    const link = { type: 1, components: [{ type: 2, style: 5, label: 'site', url: 'https://example.com' }] };
    const path = `/webhooks/${webhook.id}/${webhook.token}?wait=true&with_components=true`;
    const refused = await api('POST', path, { body: { content: 'x', components: [button] } });
    expect(refused.json.code).toBe(50035);
    expect(refused.json.errors?.components).toBeDefined();
    const linked = await api('POST', path, { body: { content: 'x', components: [link] } });
    expect(linked.json.components).toEqual([link]);
  });

  it('when a new webhook is executed ten times at once, then every execution succeeds with its own message', async () => {
    const webhook = await createWebhook(owner, channelId);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api('POST', `/webhooks/${webhook.id}/${webhook.token}?wait=true`, { body: { content: `n${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(10);
  });

  it('when posting to a forum, then thread_name or thread_id is required (220001)', async () => {
    const forum = await createChannel(owner, guildId, 'forum', { type: 15 });
    const webhook = await createWebhook(owner, forum.id);
    const res = await api('POST', `/webhooks/${webhook.id}/${webhook.token}?wait=true`, { body: { content: 'x' } });
    expect(res.json.code).toBe(220001);
  });
});

describe('threads', () => {
  it('when executed with thread_id of an archived thread, then the message is in the thread and the thread is open again', async () => {
    const webhook = await createWebhook(owner, channelId);
    const thread = await api('POST', `/channels/${channelId}/threads`, { token: owner.token, body: { name: 't', type: 11 } });
    await api('PATCH', `/channels/${thread.json.id}`, { token: owner.token, body: { archived: true } });
    const path = `/webhooks/${webhook.id}/${webhook.token}`;
    const sent = await api('POST', `${path}?wait=true&thread_id=${thread.json.id}`, { body: { content: 'in thread' } });
    expect(sent.status).toBe(200);
    expect(sent.json.channel_id).toBe(thread.json.id);
    expect((await api('GET', `/channels/${thread.json.id}`, { token: owner.token })).json).toMatchObject({
      thread_metadata: { archived: false },
    });
    expect((await api('GET', `${path}/messages/${sent.json.id}?thread_id=${thread.json.id}`)).json.id).toBe(sent.json.id);
    expect((await api('GET', `${path}/messages/${sent.json.id}?thread_id=${channelId}`)).json.code).toBe(10008);
    expect((await api('POST', `${path}?thread_id=${channelId}`, { body: { content: 'x' } })).json.code).toBe(10003);
  });

  it('when a forum webhook posts with thread_name, then a new post holds the message; both names at once are 220002', async () => {
    const forum = await createChannel(owner, guildId, 'announcements', { type: 15 });
    const webhook = await createWebhook(owner, forum.id);
    const path = `/webhooks/${webhook.id}/${webhook.token}`;
    const sent = await api('POST', `${path}?wait=true`, { body: { content: 'first post', thread_name: 'Release 1.0' } });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    expect(sent.json.channel_id).toBe(sent.json.id);
    expect((await api('GET', `/channels/${sent.json.id}`, { token: owner.token })).json).toMatchObject({
      name: 'Release 1.0',
      parent_id: forum.id,
      type: 11,
    });
    const both = await api('POST', `${path}?thread_id=${sent.json.id}`, { body: { content: 'x', thread_name: 'y' } });
    expect(both.json.code).toBe(220002);
  });
});

describe('discord.js WebhookClient', () => {
  it('when it sends with embeds, fetches, edits and deletes a message, then each call succeeds against the platform shape', async () => {
    const webhook = await createWebhook(owner, channelId);
    const client = new WebhookClient(
      { id: webhook.id, token: webhook.token! },
      { rest: { api: `${inject('gatewayOrigin')}/api`, retries: 0 } },
    );
    try {
      const sent = await client.send({
        content: 'from discord.js',
        embeds: [new EmbedBuilder().setTitle('Build').setColor(0x00ff00).addFields({ name: 'status', value: 'green' })],
      });
      expect(sent).toMatchObject({
        content: 'from discord.js',
        webhook_id: webhook.id,
        embeds: [{ type: 'rich', title: 'Build', color: 0x00ff00 }],
      });
      const fetched = await client.fetchMessage(sent.id);
      expect(fetched.id).toBe(sent.id);
      const edited = await client.editMessage(sent.id, { content: 'edited by discord.js' });
      expect(edited).toMatchObject({ id: sent.id, content: 'edited by discord.js' });
      expect(edited.edited_timestamp).not.toBeNull();
      await client.deleteMessage(sent.id);
      const gone = await client.fetchMessage(sent.id).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(gone).toBeInstanceOf(DiscordAPIError);
      expect((gone as DiscordAPIError).code).toBe(10008);
    } finally {
      client.destroy();
    }
  });
});

describe('events', () => {
  it('when a webhook posts in a channel, then its viewers get MESSAGE_CREATE and a member who cannot see it does not', async () => {
    const [watcher, outsider] = await people(2);
    const gid = await createGuild(owner, 'events');
    const hidden = await createChannel(owner, gid, 'hidden', { hidden: true });
    const open = await createChannel(owner, gid, 'open');
    await join(gid, watcher);
    await join(gid, outsider);
    const outsiderWs = await online(outsider);
    const watcherWs = await online(watcher);
    const secret = await createWebhook(owner, hidden.id);
    const visible = await createWebhook(owner, open.id);
    const first = await api('POST', `/webhooks/${secret.id}/${secret.token}?wait=true`, { body: { content: 'secret' } });
    const second = await api('POST', `/webhooks/${visible.id}/${visible.token}?wait=true`, { body: { content: 'public' } });
    const isSecond = (d: { t: string | null; d: Record<string, unknown> }) => d.t === 'MESSAGE_CREATE' && d.d.id === second.json.id;
    const before = await outsiderWs.ws.takeThrough(isSecond);
    expect(before.some((d) => d.t === 'MESSAGE_CREATE' && d.d.id === first.json.id)).toBe(false);
    await watcherWs.ws.takeThrough(isSecond);
    const created = watcherWs.ws.dispatches().find(isSecond)!;
    expect(created.d).toMatchObject({ id: second.json.id, guild_id: gid, channel_id: open.id, content: 'public' });
    outsiderWs.ws.close();
    watcherWs.ws.close();
  });

  it('when a webhook posts into a private thread, then its creator and a moderator get MESSAGE_CREATE and a parent viewer outside it does not', async () => {
    const [watcher, moderator] = await people(2);
    const gid = await createGuild(owner, 'private threads');
    const parent = await createChannel(owner, gid, 'parent');
    await join(gid, watcher);
    await join(gid, moderator);
    // MANAGE_THREADS (1 << 34): moderators see every private thread.
    const role = await api('POST', `/guilds/${gid}/roles`, { token: owner.token, body: { name: 'mods', permissions: String(1n << 34n) } });
    const granted = await api('PUT', `/guilds/${gid}/members/${moderator.id}/roles/${role.json.id}`, { token: owner.token });
    expect(granted.status).toBe(204);
    const thread = await api('POST', `/channels/${parent.id}/threads`, { token: owner.token, body: { name: 'secret', type: 12 } });
    expect(thread.status, JSON.stringify(thread.json)).toBe(201);
    const ownerWs = await online(owner);
    const watcherWs = await online(watcher);
    const moderatorWs = await online(moderator);
    const webhook = await createWebhook(owner, parent.id);
    const path = `/webhooks/${webhook.id}/${webhook.token}`;
    const hidden = await api('POST', `${path}?wait=true&thread_id=${thread.json.id}`, { body: { content: 'members only' } });
    expect(hidden.status, JSON.stringify(hidden.json)).toBe(200);
    const shown = await api('POST', `${path}?wait=true`, { body: { content: 'everyone' } });
    const isShown = (d: { t: string | null; d: Record<string, unknown> }) => d.t === 'MESSAGE_CREATE' && d.d.id === shown.json.id;
    const isHidden = (d: { t: string | null; d: Record<string, unknown> }) => d.t === 'MESSAGE_CREATE' && d.d.id === hidden.json.id;
    // The outbox publishes in commit order: once the later message arrives, the earlier one would have.
    const seen = await watcherWs.ws.takeThrough(isShown);
    expect(seen.some(isHidden)).toBe(false);
    const ownerSeen = await ownerWs.ws.takeThrough(isShown);
    expect(ownerSeen.find(isHidden)?.d).toMatchObject({ channel_id: thread.json.id, content: 'members only' });
    const moderatorSeen = await moderatorWs.ws.takeThrough(isShown);
    expect(moderatorSeen.some(isHidden)).toBe(true);
    ownerWs.ws.close();
    watcherWs.ws.close();
    moderatorWs.ws.close();
  });

  it('when the channel of a webhook is deleted, then the webhook is gone', async () => {
    const doomed = await createChannel(owner, guildId, 'doomed');
    const webhook = await createWebhook(owner, doomed.id);
    expect((await api('DELETE', `/channels/${doomed.id}`, { token: owner.token })).status).toBe(200);
    await eventually(async () => (await api('GET', `/webhooks/${webhook.id}/${webhook.token}`)).status === 404);
    expect((await api('GET', `/webhooks/${webhook.id}/${webhook.token}`)).json.code).toBe(10015);
  });
});
