import { request } from 'node:http';
import { AttachmentBuilder, EmbedBuilder, WebhookClient } from 'discord.js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from './client.js';
import { people, type Person } from './social.fixtures.js';
import { createChannel, createGuild, createWebhook, eventually, type Webhook } from './webhooks.fixtures.js';

/** Execute Webhook and Edit Webhook Message with files (multipart/form-data), through the edge. */

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let owner: Person;
let webhook: Webhook;
let channelId: string;

beforeAll(async () => {
  [owner] = await people(1);
  const guildId = await createGuild(owner, 'files');
  channelId = (await createChannel(owner, guildId, 'uploads')).id;
  webhook = await createWebhook(owner, channelId);
});

const executeUrl = (query = '?wait=true') => `${inject('baseUrl')}/webhooks/${webhook.id}/${webhook.token}${query}`;

function form(files: { name: string; body: Buffer; filename: string; type?: string }[], payload?: unknown): FormData {
  const data = new FormData();
  if (payload !== undefined) data.append('payload_json', JSON.stringify(payload));
  for (const f of files) data.append(f.name, new Blob([f.body], { type: f.type ?? 'application/octet-stream' }), f.filename);
  return data;
}

async function post(body: FormData | string, headers: Record<string, string> = {}, url = executeUrl()) {
  const res = await fetch(url, { method: 'POST', body, headers });
  const text = await res.text();
  return {
    status: res.status,
    json: (text ? JSON.parse(text) : undefined) as Record<string, unknown> & { errors?: Record<string, unknown> },
  };
}

describe('files through the edge', () => {
  it('when discord.js sends a file with embeds and edits the message to drop it, then the file is served and then removed from the message', async () => {
    const client = new WebhookClient(
      { id: webhook.id, token: webhook.token! },
      { rest: { api: `${inject('gatewayOrigin')}/api`, retries: 0 } },
    );
    try {
      const sent = await client.send({
        content: 'with a file',
        files: [new AttachmentBuilder(PNG, { name: 'dot.png', description: 'a dot' })],
        embeds: [new EmbedBuilder().setTitle('Picture').setImage('attachment://dot.png')],
      });
      expect(sent.attachments).toHaveLength(1);
      expect(sent.attachments[0]).toMatchObject({
        filename: 'dot.png',
        size: PNG.length,
        content_type: 'image/png',
        width: 1,
        height: 1,
        description: 'a dot',
      });
      const served = await fetch(sent.attachments[0]!.url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
      const edited = await client.editMessage(sent.id, { content: 'file removed', attachments: [] });
      expect(edited.attachments).toEqual([]);
      // The file leaves the store just after the edit commits (queued with it, swept at once).
      await eventually(async () => (await fetch(sent.attachments[0]!.url)).status === 404);
      const added = await client.editMessage(sent.id, { files: [new AttachmentBuilder(Buffer.from('hello'), { name: 'note.txt' })] });
      expect(added.attachments.map((a) => a.filename)).toEqual(['note.txt']);
    } finally {
      client.destroy();
    }
  });

  it('when plain form fields and several files come, then each file is an attachment with its own id and url', async () => {
    const data = form([
      { name: 'files[0]', body: Buffer.from('a'), filename: 'a.txt', type: 'text/plain' },
      { name: 'files[1]', body: Buffer.from('bb'), filename: '../../etc/passwd', type: 'text/plain' },
    ]);
    data.append('content', 'two files');
    const res = await post(data);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const attachments = res.json.attachments as { id: string; filename: string; size: number; url: string }[];
    expect(attachments.map((a) => [a.filename, a.size])).toEqual([
      ['a.txt', 1],
      ['passwd', 2],
    ]);
    expect(new Set(attachments.map((a) => a.id)).size).toBe(2);
    expect((await fetch(attachments[1]!.url)).headers.get('content-disposition')).toBe('attachment');
  });

  it('when 11 files, a file over the limit, broken payload_json or a malformed form come, then the platform errors and no message', async () => {
    const eleven = form(
      Array.from({ length: 11 }, (_, i) => ({ name: `files[${i}]`, body: Buffer.from('x'), filename: `${i}.txt` })),
      { content: 'x' },
    );
    const tooMany = await post(eleven);
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.code).toBe(50035);
    expect(tooMany.json.errors?.files).toBeDefined();

    const broken = new FormData();
    broken.append('payload_json', '{"content": ');
    expect((await post(broken)).json.code).toBe(50109);

    const malformed = await post('--nope\r\ncontent-disposition: form-data; name="x"\r\n\r\nunterminated', {
      'content-type': 'multipart/form-data; boundary=nope',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.code).toBe(50035);

    const noBoundary = await post('x', { 'content-type': 'multipart/form-data' });
    expect(noBoundary.json.code).toBe(50035);

    const empty = await post(form([]));
    expect(empty.json.code).toBe(50006);
  });

  it('when the declared size is over the limit, then 40005 before the body is sent', async () => {
    const url = new URL(executeUrl());
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(500 * 1024 * 1024) } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('--x\r\n');
      // The rest of the 500 MiB never comes: the answer must not wait for it.
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).code).toBe(40005);
  });

  it('when an upload is cut off mid-file, then the request fails and the webhook keeps working', async () => {
    const url = new URL(executeUrl());
    const head =
      '--cut\r\ncontent-disposition: form-data; name="files[0]"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n';
    await new Promise<void>((resolve) => {
      const req = request(url, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=cut', 'content-length': '2000000' },
      });
      req.on('error', () => resolve());
      req.on('response', (res) => {
        res.resume();
        resolve();
      });
      req.write(head);
      req.write(Buffer.alloc(64 * 1024, 1), () => setTimeout(() => req.destroy(), 50));
    });
    const after = await api('POST', `/webhooks/${webhook.id}/${webhook.token}?wait=true`, { body: { content: 'still here' } });
    expect(after.status).toBe(200);
  });

  it('when an unknown attachment is asked for, then 404', async () => {
    const res = await fetch(`${inject('gatewayOrigin')}/attachments/${channelId}/1/none.png`);
    expect(res.status).toBe(404);
  });
});
