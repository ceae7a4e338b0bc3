import { createRequire } from 'node:module';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import { IncomingWebhook } from '@slack/webhook';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from './client.js';
import { people, type Person } from './social.fixtures.js';
import { createChannel, createGuild, createWebhook, type Webhook } from './webhooks.fixtures.js';

/** Execute Service Webhook with the chat tool's and the code host's own senders and payloads. */

/** The code host's example deliveries: JSON behind a CommonJS entry point. */
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];

const SUPPORTED = [
  'commit_comment',
  'create',
  'delete',
  'fork',
  'issue_comment',
  'issues',
  'member',
  'public',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'push',
  'release',
  'watch',
  'check_run',
  'check_suite',
  'discussion',
  'discussion_comment',
];
const UNSUPPORTED = ['ping', 'star', 'label', 'workflow_run', 'deployment_status'];

let owner: Person;
let webhook: Webhook;
let guildId: string;

beforeAll(async () => {
  [owner] = await people(1);
  guildId = await createGuild(owner, 'services');
  webhook = await createWebhook(owner, (await createChannel(owner, guildId, 'ci')).id);
});

const base = () => `${inject('baseUrl')}/webhooks/${webhook.id}/${webhook.token}`;

describe('the chat tool format', () => {
  it('when @slack/webhook sends text and attachments, then it gets the tool’s answer and the message has the embeds', async () => {
    const sender = new IncomingWebhook(`${base()}/slack`);
    const answer = await sender.send({
      text: 'Deploy <https://example.com/run/1|run 1> finished',
      username: 'deploy-bot',
      icon_emoji: ':rocket:',
      channel: '#ignored',
      attachments: [
        {
          color: 'good',
          pretext: 'Production',
          author_name: 'ci',
          title: 'Build 42',
          title_link: 'https://example.com/42',
          text: 'All green',
          fields: [{ title: 'Duration', value: '3m', short: true }],
          footer: 'kith ci',
          ts: '1700000000',
        },
      ],
    });
    expect(answer.text).toBe('ok');
    const withWait = await api('POST', `/webhooks/${webhook.id}/${webhook.token}/slack?wait=true`, {
      body: { text: 'hello', attachments: [{ color: '#ff0000', title: 'T', fields: [{ title: 'a', value: 'b', short: false }] }] },
    });
    expect(withWait.status).toBe(200);
    expect(withWait.json).toMatchObject({
      content: 'hello',
      embeds: [{ type: 'rich', title: 'T', color: 0xff0000, fields: [{ name: 'a', value: 'b', inline: false }] }],
    });
  });

  it('when the service is validated or unknown, then 200 and 10016; a bad token is 50027', async () => {
    expect((await api('GET', `/webhooks/${webhook.id}/${webhook.token}/slack`)).status).toBe(200);
    expect((await api('GET', `/webhooks/${webhook.id}/${webhook.token}/github`)).status).toBe(200);
    expect((await api('GET', `/webhooks/${webhook.id}/${webhook.token}/gitlab`)).json.code).toBe(10016);
    expect((await api('POST', `/webhooks/${webhook.id}/${webhook.token}/gitlab`, { body: {} })).json.code).toBe(10016);
    expect((await api('POST', `/webhooks/${webhook.id}/x${webhook.token!.slice(1)}/slack`, { body: { text: 'x' } })).json.code).toBe(50027);
  });

  it('when a service posts to a forum channel without a thread, then 220004', async () => {
    const forum = await createChannel(owner, guildId, 'forum', { type: 15 });
    const hook = await createWebhook(owner, forum.id);
    expect((await api('POST', `/webhooks/${hook.id}/${hook.token}/slack`, { body: { text: 'x' } })).json.code).toBe(220004);
  });
});

describe('the code host format', () => {
  it('when every example delivery of the 18 events and some others is posted, then each is answered at once and each supported event makes messages', async () => {
    const produced = new Map<string, number>();
    for (const { name, examples: payloads } of examples) {
      if (!SUPPORTED.includes(name) && !UNSUPPORTED.includes(name)) continue;
      for (const payload of payloads) {
        const res = await fetch(`${base()}/github?wait=true`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-github-event': name },
          body: JSON.stringify(payload),
          signal: AbortSignal.timeout(5000),
        });
        expect([200, 204], `${name} ${(payload as { action?: string }).action ?? ''}`).toContain(res.status);
        if (res.status === 200) {
          const message = (await res.json()) as { embeds: { type: string; title: string; author: { name: string } }[] };
          expect(message.embeds).toHaveLength(1);
          expect(message.embeds[0]!.title.length).toBeGreaterThan(0);
          produced.set(name, (produced.get(name) ?? 0) + 1);
        }
      }
    }
    for (const name of SUPPORTED) expect(produced.get(name) ?? 0, name).toBeGreaterThan(0);
    for (const name of UNSUPPORTED) expect(produced.get(name), name).toBeUndefined();
  });

  it('when a push comes, then the embed lists its commits; one without commits and a ping are a 204 without a message', async () => {
    const push = examples.find((e) => e.name === 'push')!.examples.find((p) => (p as { commits: unknown[] }).commits.length > 0)!;
    const res = await api('POST', `/webhooks/${webhook.id}/${webhook.token}/github?wait=true`, {
      body: push,
      headers: { 'x-github-event': 'push' },
    });
    expect(res.json.embeds).toEqual([
      expect.objectContaining({ title: expect.stringMatching(/new commit/), description: expect.stringMatching(/\[`[0-9a-f]{7}`\]/) }),
    ]);
    const empty = { ...(push as object), commits: [] };
    expect(
      (await api('POST', `/webhooks/${webhook.id}/${webhook.token}/github`, { body: empty, headers: { 'x-github-event': 'push' } })).status,
    ).toBe(204);
    expect(
      (await api('POST', `/webhooks/${webhook.id}/${webhook.token}/github`, { body: { zen: 'hi' }, headers: { 'x-github-event': 'ping' } }))
        .status,
    ).toBe(204);
  });
});
