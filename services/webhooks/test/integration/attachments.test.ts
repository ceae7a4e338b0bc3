import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../src/store/s3.objects.js';
import { guildWithChannel, newUser, startWebhooksStack, stopWebhooksStack, type WebhooksStack } from './harness.js';
import { startS3 } from './s3.server.js';

const BUCKET = 'kith-test-attachments';
let s3: Awaited<ReturnType<typeof startS3>>;
let stack: WebhooksStack;

beforeAll(async () => {
  s3 = await startS3(BUCKET);
  stack = await startWebhooksStack({
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: BUCKET,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  });
});
afterAll(async () => {
  await stopWebhooksStack(stack);
  await s3.close();
});

describe('attachments in an S3-protocol store', () => {
  it('when the bucket does not exist yet, then the adapter makes it, once however often asked', async () => {
    const store = new S3ObjectStore({
      endpoint: s3.endpoint,
      bucket: 'kith-fresh',
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    await Promise.all([store.ensureBucket(), store.ensureBucket()]);
    await store.ensureBucket();
    expect((await fetch(`${s3.endpoint}/kith-fresh`)).status).toBe(200);
    store.close();
  });

  it('when the adapter puts, gets and deletes an object, then the store has it and then does not', async () => {
    const store = new S3ObjectStore({
      endpoint: s3.endpoint,
      bucket: BUCKET,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
    const path = join(tmpdir(), `kith-s3-object-${process.pid}`);
    await writeFile(path, 'hello s3');
    await store.putFile('attachments/1/2/hello.txt', path, 8, 'text/plain');
    const got = await store.get('attachments/1/2/hello.txt');
    expect(got).toMatchObject({ contentType: 'text/plain', size: 8 });
    expect(await text(got!.body)).toBe('hello s3');
    await store.delete(['attachments/1/2/hello.txt']);
    expect(await store.get('attachments/1/2/hello.txt')).toBeUndefined();
    store.close();
  });

  it('when a webhook is executed with a file, then it lands in the bucket and the edge serves it from there', async () => {
    const owner = await newUser(stack);
    const { channelId } = await guildWithChannel(stack, owner);
    const made = await fetch(`${stack.base}/api/v9/channels/${channelId}/webhooks`, {
      method: 'POST',
      headers: { authorization: owner.token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'uploader' }),
    }).then((r) => r.json() as Promise<{ id: string; token: string }>);
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'report', attachments: [{ id: 0, description: 'the report' }] }));
    form.append('files[0]', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'report.csv');
    const res = await fetch(`${stack.base}/api/v9/webhooks/${made.id}/${made.token}?wait=true`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    const message = (await res.json()) as { attachments: { url: string; filename: string; description: string; content_type: string }[] };
    expect(message.attachments[0]).toMatchObject({ filename: 'report.csv', description: 'the report', content_type: 'text/csv' });
    const path = new URL(message.attachments[0]!.url).pathname;
    const served = await fetch(`${stack.base}${path}`);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('a,b\n1,2\n');
    const inBucket = await fetch(`${s3.endpoint}/${BUCKET}${path}`);
    expect(inBucket.status).toBe(200);
  });
});
