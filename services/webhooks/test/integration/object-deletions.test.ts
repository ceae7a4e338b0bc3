import { SnowflakeGenerator, createLogger } from '@kith/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttachmentsService } from '../../src/domain/attachments.service.js';
import { ObjectSweeper } from '../../src/domain/object.sweeper.js';
import { PgDeletionQueue } from '../../src/store/object-deletions.store.js';
import { S3ObjectStore } from '../../src/store/s3.objects.js';
import {
  api,
  guildWithChannel,
  newUser,
  startWebhooksStack,
  stopWebhooksStack,
  type Body,
  type StackUser,
  type WebhooksStack,
} from './harness.js';
import { startS3 } from './s3.server.js';
import { eventually } from '@kith/platform/testing';

/** Deleting messages, webhooks, channels and guilds takes their files out of the S3-protocol store. */

const BUCKET = 'kith-test-deletions';
let s3: Awaited<ReturnType<typeof startS3>>;
let stack: WebhooksStack;
let owner: StackUser;

beforeAll(async () => {
  s3 = await startS3(BUCKET);
  stack = await startWebhooksStack({
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: BUCKET,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    // Sweeps start when this process deletes something; the last test queues keys behind its back.
    OBJECT_SWEEP_INTERVAL_MS: '3600000',
  });
  owner = await newUser(stack);
});
afterAll(async () => {
  await stopWebhooksStack(stack);
  await s3.close();
});

const inBucket = async (url: string): Promise<boolean> => (await fetch(`${s3.endpoint}/${BUCKET}${new URL(url).pathname}`)).status === 200;

/** A webhook in a new channel of a new guild, with a message holding two files. */
async function hookWithFiles(): Promise<{ guildId: string; channelId: string; hook: Body; message: Body; urls: string[] }> {
  const { guildId, channelId } = await guildWithChannel(stack, owner);
  const hook = (await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'files' })).body;
  const form = new FormData();
  form.append('payload_json', JSON.stringify({ content: 'files' }));
  form.append('files[0]', new Blob(['one'], { type: 'text/plain' }), 'one.txt');
  form.append('files[1]', new Blob(['two'], { type: 'text/plain' }), 'two.txt');
  const res = await fetch(`${stack.base}/api/v9/webhooks/${hook.id}/${hook.token}?wait=true`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  const message = (await res.json()) as Body;
  const urls = (message.attachments as { url: string }[]).map((a) => a.url);
  for (const url of urls) expect(await inBucket(url)).toBe(true);
  return { guildId, channelId, hook, message, urls };
}

async function allGone(urls: string[]): Promise<boolean> {
  for (const url of urls) if (await inBucket(url)) return false;
  return true;
}

describe('attachment files leave the object store with what held them', () => {
  it('when a message edit drops a file and then the message is deleted, then each file is removed from the bucket', async () => {
    const { hook, message, urls } = await hookWithFiles();
    const path = `/webhooks/${hook.id}/${hook.token}/messages/${message.id}`;
    const edited = await api(stack, null, 'PATCH', path, { attachments: [{ id: message.attachments[0].id }] });
    expect(edited.body.attachments).toHaveLength(1);
    await eventually(() => allGone([urls[1]!]));
    expect(await inBucket(urls[0]!)).toBe(true);
    expect((await api(stack, null, 'DELETE', path)).status).toBe(204);
    await eventually(() => allGone(urls));
  });

  it('when the webhook is deleted, then its messages’ files are removed', async () => {
    const { hook, urls } = await hookWithFiles();
    expect((await api(stack, owner, 'DELETE', `/webhooks/${hook.id}`)).status).toBe(204);
    await eventually(() => allGone(urls));
  });

  it('when the channel is deleted in guilds, then its webhooks’ files are removed (through CHANNEL_DELETE)', async () => {
    const { channelId, urls } = await hookWithFiles();
    expect((await api(stack, owner, 'DELETE', `/channels/${channelId}`)).status).toBe(200);
    await eventually(() => allGone(urls));
  });

  it('when the guild is deleted, then the files of every webhook in it are removed (through GUILD_DELETE)', async () => {
    const first = await hookWithFiles();
    const other = await api(stack, owner, 'POST', `/guilds/${first.guildId}/channels`, { name: 'other' });
    const second = (await api(stack, owner, 'POST', `/channels/${other.body.id}/webhooks`, { name: 'second' })).body;
    const form = new FormData();
    form.append('files[0]', new Blob(['three'], { type: 'text/plain' }), 'three.txt');
    const sent = (await (
      await fetch(`${stack.base}/api/v9/webhooks/${second.id}/${second.token}?wait=true`, { method: 'POST', body: form })
    ).json()) as Body;
    const urls = [...first.urls, sent.attachments[0].url as string];
    expect(await inBucket(urls[2]!)).toBe(true);
    expect((await api(stack, owner, 'DELETE', `/guilds/${first.guildId}`)).status).toBe(204);
    await eventually(() => allGone(urls));
  });

  it('when the store cannot be reached, then the keys stay queued and a later sweep removes the files', async () => {
    const { urls } = await hookWithFiles();
    const queue = new PgDeletionQueue(stack.db);
    // Another replica's view of the same queue: this one's store does not answer.
    const unreachable = new S3ObjectStore({
      endpoint: 'http://127.0.0.1:9',
      bucket: BUCKET,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    const keys = urls.map((u) => new URL(u).pathname.slice(1));
    // Queued by a deletion in a replica that stopped before it swept them.
    await stack.db
      .insertInto('object_deletions')
      .values(keys.map((key) => ({ key, not_before: new Date(Date.now() - 1000) })))
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const failing = new ObjectSweeper(queue, unreachable, createLogger('test', 'silent'), { intervalMs: 60_000, batch: 100 });
    await failing.sweep();
    unreachable.close();
    const rows = await stack.db.selectFrom('object_deletions').selectAll().where('key', 'in', keys).execute();
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.attempts === 1 && r.not_before.getTime() > Date.now())).toBe(true);
    for (const url of urls) expect(await inBucket(url)).toBe(true);
    // Due again (as it will be after its back-off): the next sweep removes them.
    await stack.db
      .updateTable('object_deletions')
      .set({ not_before: new Date(Date.now() - 1000) })
      .where('key', 'in', keys)
      .execute();
    const reachable = new S3ObjectStore({
      endpoint: s3.endpoint,
      bucket: BUCKET,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    await new ObjectSweeper(queue, reachable, createLogger('test', 'silent'), { intervalMs: 60_000, batch: 1 }).sweep();
    reachable.close();
    expect(await allGone(urls)).toBe(true);
    expect(await stack.db.selectFrom('object_deletions').select('key').where('key', 'in', keys).execute()).toEqual([]);
  });

  it('when the files of a refused request cannot be removed now, then their keys are queued for a later sweep', async () => {
    const queue = new PgDeletionQueue(stack.db);
    const unreachable = new S3ObjectStore({
      endpoint: 'http://127.0.0.1:9',
      bucket: BUCKET,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    const attachments = new AttachmentsService(unreachable, new SnowflakeGenerator(), 'http://cdn', (keys) => queue.enqueue(keys));
    const key = `attachments/1/${Date.now()}/refused.txt`;
    const file = { index: '0', key, attachment: { id: '1', filename: 'refused.txt', size: 1, url: `http://cdn/${key}`, proxy_url: '' } };
    await attachments.discard([file]);
    unreachable.close();
    expect(await stack.db.selectFrom('object_deletions').select('key').where('key', '=', key).execute()).toEqual([{ key }]);
  });
});
