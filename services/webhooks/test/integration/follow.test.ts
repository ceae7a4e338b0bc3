import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@kith/platform';
import { api, guildWithChannel, newUser, startWebhooksStack, stopWebhooksStack, type StackUser, type WebhooksStack } from './harness.js';

/** Follow Channel: a CHANNEL_FOLLOWER webhook in the follower's channel, through the edge, with real guilds. */

let stack: WebhooksStack;
let owner: StackUser;
let sourceGuild: string;
let announcements: string;

beforeAll(async () => {
  stack = await startWebhooksStack();
  owner = await newUser(stack);
  sourceGuild = (await api(stack, owner, 'POST', '/guilds', { name: 'Release Notes' })).body.id;
  const made = await api(stack, owner, 'POST', `/guilds/${sourceGuild}/channels`, { name: 'announcements', type: 5 });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  announcements = made.body.id;
});
afterAll(() => stopWebhooksStack(stack));

describe('following an announcement channel', () => {
  it('when the owner follows it into a text channel, then a follower webhook carries the source, without a token, with WEBHOOKS_UPDATE', async () => {
    const { guildId, channelId } = await guildWithChannel(stack, owner);
    const followed = await api(stack, owner, 'POST', `/channels/${announcements}/followers`, { webhook_channel_id: channelId });
    expect(followed.status, JSON.stringify(followed.body)).toBe(200);
    expect(Object.keys(followed.body).sort()).toEqual(['channel_id', 'webhook_id']);
    expect(followed.body.channel_id).toBe(announcements);
    const listed = await api(stack, owner, 'GET', `/channels/${channelId}/webhooks`);
    expect(listed.body).toHaveLength(1);
    const webhook = listed.body[0];
    expect(webhook).toMatchObject({
      id: followed.body.webhook_id,
      type: 2,
      guild_id: guildId,
      channel_id: channelId,
      name: 'Release Notes',
      source_guild: { id: sourceGuild, name: 'Release Notes', icon: null },
      source_channel: { id: announcements, name: 'announcements' },
      user: { id: owner.userId },
    });
    expect(webhook.token).toBeUndefined();
    expect(webhook.url).toBeUndefined();
    expect((await api(stack, owner, 'GET', `/webhooks/${webhook.id}`)).body.source_channel.id).toBe(announcements);
    const { rows } = await sql<{ data: { channel_id: string } }>`SELECT envelope->'data' AS data FROM outbox
      WHERE subject = 'events.webhooks.WEBHOOKS_UPDATE'`.execute(stack.db);
    expect(rows.map((r) => r.data.channel_id)).toContain(channelId);
    // Following again into the same channel is the same follow.
    const again = await api(stack, owner, 'POST', `/channels/${announcements}/followers`, { webhook_channel_id: channelId });
    expect(again.body.webhook_id).toBe(followed.body.webhook_id);
    expect((await api(stack, owner, 'GET', `/channels/${channelId}/webhooks`)).body).toHaveLength(1);
  });

  it('when the source is not an announcement channel or the body is bad, then 50024 and 50035, and nothing is made', async () => {
    const { channelId } = await guildWithChannel(stack, owner);
    const text = await guildWithChannel(stack, owner);
    const notNews = await api(stack, owner, 'POST', `/channels/${text.channelId}/followers`, { webhook_channel_id: channelId });
    expect(notNews).toMatchObject({ status: 400, body: { code: 50024 } });
    const missing = await api(stack, owner, 'POST', `/channels/${announcements}/followers`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors.webhook_channel_id._errors[0].code).toBe('BASE_TYPE_REQUIRED');
    const notId = await api(stack, owner, 'POST', `/channels/${announcements}/followers`, { webhook_channel_id: 'abc' });
    expect(notId.body.code).toBe(50035);
    const unknownTarget = await api(stack, owner, 'POST', `/channels/${announcements}/followers`, { webhook_channel_id: '1234567890123' });
    expect(unknownTarget.body.code).toBe(10003);
    const category = await api(stack, owner, 'POST', `/guilds/${text.guildId}/channels`, { name: 'cat', type: 4 });
    const intoCategory = await api(stack, owner, 'POST', `/channels/${announcements}/followers`, { webhook_channel_id: category.body.id });
    expect(intoCategory.body.code).toBe(50024);
    expect((await api(stack, owner, 'GET', `/channels/${channelId}/webhooks`)).body).toEqual([]);
  });

  it('when the caller cannot view the source or lacks MANAGE_WEBHOOKS on the target, or is nobody, then 10003, 50013 and 401', async () => {
    const other = await newUser(stack);
    const own = await guildWithChannel(stack, other);
    // Not in the source's guild: the announcement channel is unknown to them.
    const unseen = await api(stack, other, 'POST', `/channels/${announcements}/followers`, { webhook_channel_id: own.channelId });
    expect(unseen).toMatchObject({ status: 404, body: { code: 10003 } });
    // A member of the follower's guild without MANAGE_WEBHOOKS there.
    const { guildId, channelId } = await guildWithChannel(stack, owner);
    expect((await stack.grpc.addMember({ guildId, userId: other.userId })).errorCode).toBe(0);
    expect((await stack.grpc.addMember({ guildId: sourceGuild, userId: other.userId })).errorCode).toBe(0);
    const denied = await api(stack, other, 'POST', `/channels/${announcements}/followers`, { webhook_channel_id: channelId });
    expect(denied).toMatchObject({ status: 403, body: { code: 50013 } });
    const anonymous = await api(stack, null, 'POST', `/channels/${announcements}/followers`, { webhook_channel_id: channelId });
    expect(anonymous.status).toBe(401);
    expect((await api(stack, owner, 'GET', `/channels/${channelId}/webhooks`)).body).toEqual([]);
  });
});
