import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, sql } from '@kith/platform';
import { WebhooksService } from '@kith/proto/webhooks/v1/webhooks';
import { tokenDigest } from '../../src/domain/webhook.token.js';
import { api, guildWithChannel, newUser, startWebhooksStack, stopWebhooksStack, type StackUser, type WebhooksStack } from './harness.js';
import { eventually } from '@kith/platform/testing';

let stack: WebhooksStack;
let owner: StackUser;

beforeAll(async () => {
  stack = await startWebhooksStack();
  owner = await newUser(stack);
});
afterAll(() => stopWebhooksStack(stack));

describe('webhooks against PostgreSQL, NATS and the guilds service', () => {
  it('when a webhook is created, then its row holds the token only sealed and digested, and its event is in the outbox', async () => {
    const { channelId } = await guildWithChannel(stack, owner);
    const made = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'sealed' });
    expect(made.status).toBe(200);
    const row = await stack.db.selectFrom('webhooks').selectAll().where('id', '=', made.body.id).executeTakeFirstOrThrow();
    expect(row.token_sealed.includes(Buffer.from(made.body.token))).toBe(false);
    expect(row.token_digest.equals(tokenDigest(made.body.token))).toBe(true);
    const { rows } = await sql<{ data: { channel_id: string } }>`SELECT envelope->'data' AS data FROM outbox
      WHERE subject = 'events.webhooks.WEBHOOKS_UPDATE'`.execute(stack.db);
    expect(rows.map((r) => r.data.channel_id)).toContain(channelId);
  });

  it('when 40 creations race in one guild over two channels, then each channel stops at 15', async () => {
    const { guildId, channelId } = await guildWithChannel(stack, owner);
    const other = await api(stack, owner, 'POST', `/guilds/${guildId}/channels`, { name: 'other' });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api(stack, owner, 'POST', `/channels/${i % 2 ? channelId : other.body.id}/webhooks`, { name: `h${i}` }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(30);
    expect(new Set(answers.filter((a) => a.status !== 200).map((a) => a.body.code))).toEqual(new Set([30007]));
    const rows = await stack.db.selectFrom('webhooks').select('channel_id').where('guild_id', '=', guildId).execute();
    expect(rows).toHaveLength(30);
  });

  it('when a guild is deleted, then its webhooks and their messages go (through its GUILD_DELETE on the stream)', async () => {
    const { guildId, channelId } = await guildWithChannel(stack, owner);
    const made = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'doomed' });
    const path = `/webhooks/${made.body.id}/${made.body.token}`;
    expect((await api(stack, null, 'POST', `${path}?wait=true`, { content: 'bye' })).status).toBe(200);
    expect((await api(stack, owner, 'DELETE', `/guilds/${guildId}`)).status).toBe(204);
    await eventually(async () => (await api(stack, null, 'GET', path)).status === 404);
    const left = await stack.db.selectFrom('messages').select('id').where('guild_id', '=', guildId).execute();
    expect(left).toEqual([]);
  });

  it('when another replica renames or deletes a webhook this one remembers, then the next execution posts as renamed, then not at all', async () => {
    const { channelId } = await guildWithChannel(stack, owner);
    const made = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'remembered' });
    const path = `/webhooks/${made.body.id}/${made.body.token}?wait=true`;
    expect((await api(stack, null, 'POST', path, { content: 'first' })).body.author.username).toBe('remembered');
    // Changed behind this process's back (as another replica would): no local forgetting happens.
    await stack.db.updateTable('webhooks').set({ name: 'renamed' }).where('id', '=', made.body.id).execute();
    const second = await api(stack, null, 'POST', path, { content: 'second' });
    expect(second.status).toBe(200);
    expect(second.body.author.username).toBe('renamed');
    await stack.db.deleteFrom('webhooks').where('id', '=', made.body.id).execute();
    const third = await api(stack, null, 'POST', path, { content: 'third' });
    expect(third.status).toBe(404);
    expect(third.body.code).toBe(10015);
    const saved = await stack.db.selectFrom('messages').select('content').where('webhook_id', '=', made.body.id).orderBy('id').execute();
    expect(saved.map((m) => m.content)).toEqual(['first', 'second']);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox
      WHERE subject = 'events.webhooks.MESSAGE_CREATE' AND envelope->'data'->>'webhook_id' = ${made.body.id}`.execute(stack.db);
    expect(rows[0]!.n).toBe(2);
  });

  it('when the message store has a message, then only the webhook that posted it reads it', async () => {
    const { channelId } = await guildWithChannel(stack, owner);
    const a = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'a' });
    const b = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'b' });
    const sent = await api(stack, null, 'POST', `/webhooks/${a.body.id}/${a.body.token}?wait=true`, { content: 'from a' });
    expect((await api(stack, null, 'GET', `/webhooks/${a.body.id}/${a.body.token}/messages/${sent.body.id}`)).body.content).toBe('from a');
    expect((await api(stack, null, 'GET', `/webhooks/${b.body.id}/${b.body.token}/messages/${sent.body.id}`)).body.code).toBe(10008);
    expect((await api(stack, null, 'DELETE', `/webhooks/${b.body.id}/${b.body.token}/messages/${sent.body.id}`)).body.code).toBe(10008);
  });
});

describe('the gRPC contract', () => {
  it('when integrations removes an application from a guild, then its webhooks there go with WEBHOOKS_UPDATE, others stay', async () => {
    const { guildId, channelId } = await guildWithChannel(stack, owner);
    const kept = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'kept' });
    const app = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'app' });
    await stack.db.updateTable('webhooks').set({ type: 3, application_id: '4242424242' }).where('id', '=', app.body.id).execute();
    const client = createClient(WebhooksService, `127.0.0.1:${stack.webhooks.grpcPort}`, 5000);
    try {
      expect(await client.deleteApplicationWebhooks({ guildId, applicationId: '4242424242' })).toMatchObject({ deleted: 1 });
      expect(await client.deleteApplicationWebhooks({ guildId, applicationId: 'nope' })).toMatchObject({ deleted: 0 });
    } finally {
      client.close();
    }
    const left = await stack.db.selectFrom('webhooks').select('id').where('guild_id', '=', guildId).execute();
    expect(left.map((w) => w.id)).toEqual([kept.body.id]);
  });
});

describe('application webhooks over gRPC', () => {
  it('when integrations creates one for an authorizing manager, then it executes with its token, which only the application’s user is shown', async () => {
    const { guildId, channelId } = await guildWithChannel(stack, owner);
    const appUser = await newUser(stack);
    const client = createClient(WebhooksService, `127.0.0.1:${stack.webhooks.grpcPort}`, 5000);
    try {
      const request = {
        userId: owner.userId,
        channelId,
        guildId,
        applicationId: '4343434343',
        name: 'Deploy Bot',
        avatar: '',
        applicationUserId: appUser.userId,
      };
      const { errorCode, webhook } = await client.createApplicationWebhook(request);
      expect(errorCode).toBe(0);
      expect(webhook).toMatchObject({ type: 3, guildId, channelId, name: 'Deploy Bot', avatar: '', applicationId: '4343434343' });
      expect(webhook!.token).toMatch(/^[\w-]{68}$/);
      const sent = await api(stack, null, 'POST', `/webhooks/${webhook!.id}/${webhook!.token}?wait=true`, { content: 'deployed' });
      expect(sent.body).toMatchObject({ content: 'deployed', application_id: '4343434343', webhook_id: webhook!.id });
      const managed = await api(stack, owner, 'GET', `/webhooks/${webhook!.id}`);
      expect(managed.body).toMatchObject({ type: 3, application_id: '4343434343' });
      expect(managed.body.token).toBeUndefined();
      expect((await api(stack, owner, 'GET', `/channels/${channelId}/webhooks`)).body[0].token).toBeUndefined();
      expect((await api(stack, appUser, 'GET', `/webhooks/${webhook!.id}`)).body).toMatchObject({
        token: webhook!.token,
        url: webhook!.url,
      });
      // Refusals travel as the platform's codes: no permission, unknown channel, another guild's channel, bad ids.
      expect((await client.createApplicationWebhook({ ...request, userId: appUser.userId })).errorCode).toBe(10003);
      expect((await client.createApplicationWebhook({ ...request, channelId: '1234567890' })).errorCode).toBe(10003);
      const other = await guildWithChannel(stack, owner);
      expect((await client.createApplicationWebhook({ ...request, channelId: other.channelId })).errorCode).toBe(10003);
      expect((await client.createApplicationWebhook({ ...request, applicationId: 'x' })).errorCode).toBe(10003);
      const made = await stack.db
        .selectFrom('webhooks')
        .select('id')
        .where('application_id', '=', '4343434343')
        .where('guild_id', 'in', [guildId, other.guildId])
        .execute();
      expect(made).toHaveLength(1);
    } finally {
      client.close();
    }
  });
});
