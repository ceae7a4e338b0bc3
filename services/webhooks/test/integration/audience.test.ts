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
async function audienceOf(messageId: string): Promise<{ users?: string[]; guilds?: string[] }> {
  const { rows } = await sql<{ audience: { users?: string[]; guilds?: string[] } }>`SELECT envelope->'audience' AS audience FROM outbox
    WHERE subject = 'events.webhooks.MESSAGE_CREATE' AND envelope->'data'->>'id' = ${messageId}`.execute(stack.db);
  return rows[0]?.audience ?? {};
}

const VIEW_CHANNEL = String(1 << 10);

describe('the audience of a webhook message', () => {
  it('when every member sees the channel, then its messages go to the guild (realtime fans out), not to a list of ids', async () => {
    const { guildId, channelId } = await guildWithChannel(stack, owner);
    const hook = await api(stack, owner, 'POST', `/channels/${channelId}/webhooks`, { name: 'everyone' });
    const sent = await api(stack, null, 'POST', `/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, { content: 'x' });
    expect(await audienceOf(sent.body.id)).toEqual({ guilds: [guildId] });
  });

  it('when a member who alone was let into a hidden channel leaves after executions remembered who sees it, then the next messages no longer go to them', async () => {
    const { guildId } = await guildWithChannel(stack, owner);
    const member = await newUser(stack);
    const outsider = await newUser(stack);
    for (const user of [member, outsider]) expect((await stack.grpc.addMember({ guildId, userId: user.userId })).errorCode).toBe(0);
    const hidden = await api(stack, owner, 'POST', `/guilds/${guildId}/channels`, {
      name: 'hidden',
      permission_overwrites: [
        { id: guildId, type: 0, allow: '0', deny: VIEW_CHANNEL },
        { id: member.userId, type: 1, allow: VIEW_CHANNEL, deny: '0' },
      ],
    });
    expect(hidden.status).toBe(201);
    const hook = await api(stack, owner, 'POST', `/channels/${hidden.body.id}/webhooks`, { name: 'audience' });
    const execute = async () =>
      (await api(stack, null, 'POST', `/webhooks/${hook.body.id}/${hook.body.token}?wait=true`, { content: 'x' })).body.id as string;
    const first = await audienceOf(await execute());
    expect(first.users).toEqual(expect.arrayContaining([owner.userId, member.userId]));
    expect(first.users).not.toContain(outsider.userId);
    expect((await stack.grpc.removeMember({ guildId, userId: member.userId })).removed).toBe(true);
    await eventually(async () => !(await audienceOf(await execute())).users?.includes(member.userId));
    expect(await audienceOf(await execute())).toEqual({ users: [owner.userId] });
  });
});
