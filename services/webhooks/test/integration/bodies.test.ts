import { request } from 'node:http';
import { createRequire } from 'node:module';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, guildWithChannel, newUser, startWebhooksStack, stopWebhooksStack, type Body, type WebhooksStack } from './harness.js';

/** Execution bodies larger than the services' usual 1 MiB: the code host's big pushes. */

const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];
const MAX_JSON = 4 * 1024 * 1024;

let stack: WebhooksStack;
let hook: Body;

beforeAll(async () => {
  // A smaller limit than the default (25 MiB) keeps the over-limit bodies light on the machine.
  stack = await startWebhooksStack({ MAX_JSON_BYTES: String(MAX_JSON), JSON_BUDGET_BYTES: String(8 * 1024 * 1024) });
  const owner = await newUser(stack);
  const { channelId } = await guildWithChannel(stack, owner);
  hook = (await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'ci' })).body;
});
afterAll(() => stopWebhooksStack(stack));

/** The example push with `count` commits, each a copy of its first with its own id and message. */
function bigPush(count: number): Record<string, unknown> {
  const push = examples.find((e) => e.name === 'push')!.examples.find((p) => (p as { commits: unknown[] }).commits.length > 0)!;
  const first = (push as unknown as { commits: Record<string, unknown>[] }).commits[0]!;
  const commits = Array.from({ length: count }, (_, i) => ({
    ...first,
    id: i.toString(16).padStart(40, 'a'),
    message: `change ${i}\n\n${'why it changed. '.repeat(20)}`,
  }));
  return { ...(push as object), commits };
}

/**
 * A raw request to the edge: `chunks` sent as they are, with the headers given (no length:
 * chunked); `partial` leaves the body unfinished, as a client still sending it would.
 */
function raw(
  path: string,
  headers: Record<string, string>,
  chunks: Iterable<Buffer>,
  partial = false,
): Promise<{ status: number; body: Body }> {
  return new Promise((resolve, reject) => {
    const req = request(`${stack.base}/api/v9${path}`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    // The server may answer and close before the whole body is written.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    const write = async () => {
      for (const chunk of chunks) if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      if (!partial) req.end();
    };
    write().catch(() => undefined);
  });
}

describe('large execution bodies', () => {
  it('when the code host delivers a push over 1 MiB, then it is taken and rendered as its commits', async () => {
    const push = bigPush(3000);
    const text = JSON.stringify(push);
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const res = await api(stack, null, 'POST', `/webhooks/${hook.id}/${hook.token}/github?wait=true`, push, { 'x-github-event': 'push' });
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.body.embeds[0].title).toMatch(/ 3000 new commits$/);
    // The first commits are listed, not all of them.
    const lines = (res.body.embeds[0].description as string).split('\n');
    expect(lines[0]).toContain('[`aaaaaaa`]');
    expect(lines.length).toBeLessThanOrEqual(5);
  });

  it('when a plain execution or an edit carries over 1 MiB of JSON, then it is read; its checks still apply', async () => {
    const padding = 'x'.repeat(1_500_000);
    const path = `/webhooks/${hook.id}/${hook.token}`;
    const sent = await api(stack, null, 'POST', `${path}?wait=true`, { content: 'big body', unknown_field: padding });
    expect(sent.status, sent.text.slice(0, 200)).toBe(200);
    const edited = await api(stack, null, 'PATCH', `${path}/messages/${sent.body.id}`, { content: 'edited', unknown_field: padding });
    expect(edited.body.content).toBe('edited');
    const long = await api(stack, null, 'POST', path, { content: padding });
    expect(long.status).toBe(400);
    expect(long.body.errors.content._errors[0].code).toBe('BASE_TYPE_MAX_LENGTH');
  });

  it('when the declared size is over the limit, then 40005 before the body is sent; the token is checked first', async () => {
    const headers = { 'content-type': 'application/json', 'content-length': String(MAX_JSON + 1), 'x-github-event': 'push' };
    // Only the first bytes are ever written: the answer cannot wait for the rest.
    const over = await raw(`/webhooks/${hook.id}/${hook.token}/github`, headers, [Buffer.from('{"commits": [')], true);
    expect(over).toMatchObject({ status: 413, body: { code: 40005 } });
    const badToken = await raw(`/webhooks/${hook.id}/${'x'.repeat(68)}`, headers, [Buffer.from('{"content": "')], true);
    expect(badToken.body.code).toBe(50027);
  });

  it('when a body without a length runs past the limit, then 40005 and no message; the webhook keeps working', async () => {
    const chunk = Buffer.from(`"${'y'.repeat(64 * 1024 - 3)}",`);
    function* body() {
      yield Buffer.from('{"content": "chunked", "pad": [');
      for (let sent = 0; sent <= MAX_JSON + 1024 * 1024; sent += chunk.length) yield chunk;
      yield Buffer.from('"end"]}');
    }
    const path = `/webhooks/${hook.id}/${hook.token}`;
    const over = await raw(`${path}?wait=true`, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body());
    expect(over).toMatchObject({ status: 413, body: { code: 40005 } });
    const count = await stack.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('webhook_id', '=', hook.id)
      .where('content', '=', 'chunked')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
    expect((await api(stack, null, 'POST', `${path}?wait=true`, { content: 'still here' })).status).toBe(200);
  });

  it('when a form-encoded delivery is over 1 MiB, then its payload field is read', async () => {
    const form = new URLSearchParams({ payload: JSON.stringify(bigPush(2000)) }).toString();
    expect(form.length).toBeGreaterThan(1024 * 1024);
    const res = await raw(
      `/webhooks/${hook.id}/${hook.token}/github?wait=true`,
      { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(form)), 'x-github-event': 'push' },
      [Buffer.from(form)],
    );
    expect(res.status).toBe(200);
    expect(res.body.embeds[0].title).toMatch(/ 2000 new commits$/);
  });
});
