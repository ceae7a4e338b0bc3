import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@kith/platform';
import { eventually } from '@kith/platform/testing';
import { api, guildWithChannel, newUser, startWebhooksStack, stopWebhooksStack, type StackUser, type WebhooksStack } from './harness.js';

let stack: WebhooksStack;
let owner: StackUser;

// Remembered for ten minutes: only guilds' events can make an execution ask again within a test.
beforeAll(async () => {
  stack = await startWebhooksStack({ GUILD_CACHE_TTL_MS: String(600_000) });
  owner = await newUser(stack);
});
afterAll(() => stopWebhooksStack(stack));

/** Who the MESSAGE_CREATE of the message went to. */
async function audienceOf(messageId: string): Promise<string[]> {
  const { rows } = await sql<{ users: string[] }>`SELECT envelope->'audience'->'users' AS users FROM outbox
    WHERE subject = 'events.webhooks.MESSAGE_CREATE' AND envelope->'data'->>'id' = ${messageId}`.execute(stack.db);
  return rows[0]?.users ?? [];
}

describe('the audience of a webhook message', () => {
  it('when a member leaves after executions remembered who sees the channel, then the next messages no longer go to them', async () => {
    const { guildId, channelId } = await guildWithChannel(stack, owner);
    const member = await newUser(stack);
    expect((await stack.grpc.addMember({ guildId, userId: member.userId })).errorCode).toBe(0);
    const hook = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'audience' });
    const execute = async () =>
      (await api(stack, null, 'POST', `/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, { content: 'x' })).body.id as string;
    expect(await audienceOf(await execute())).toEqual(expect.arrayContaining([owner.userId, member.userId]));
    expect((await stack.grpc.removeMember({ guildId, userId: member.userId })).removed).toBe(true);
    await eventually(async () => !(await audienceOf(await execute())).includes(member.userId));
    expect(await audienceOf(await execute())).toEqual([owner.userId]);
  });
});
