import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, guildWithChannel, newUser, startWebhooksStack, stopWebhooksStack, type WebhooksStack } from './harness.js';

/** The edge's production rate-limit table in front of the webhooks service. */
let stack: WebhooksStack;

beforeAll(async () => {
  stack = await startWebhooksStack({}, { RATE_LIMITS_SCALE: '1' });
});
afterAll(() => stopWebhooksStack(stack));

describe('per-webhook rate limit', () => {
  it('when one webhook is executed past its limit, then 429 with the shared scope and headers; another webhook is not held up', async () => {
    const owner = await newUser(stack);
    const { channelId } = await guildWithChannel(stack, owner);
    const a = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'a' });
    const b = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'b' });
    const answers = [];
    for (let i = 0; i < 6; i++)
      answers.push(await api(stack, null, 'POST', `/webhooks/${a.body.id}/${a.body.token}`, { content: `n${i}` }));
    expect(answers.slice(0, 5).map((r) => r.status)).toEqual([204, 204, 204, 204, 204]);
    const refused = answers[5]!;
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ message: 'You are being rate limited.', global: false });
    expect(refused.headers['x-ratelimit-scope']).toBe('shared');
    expect(refused.headers['retry-after']).toBeDefined();
    expect(answers[0]!.headers['x-ratelimit-limit']).toBe('5');
    expect((await api(stack, null, 'POST', `/webhooks/${b.body.id}/${b.body.token}`, { content: 'other' })).status).toBe(204);
  });
});
