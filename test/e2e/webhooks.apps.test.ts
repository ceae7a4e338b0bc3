import { describe, expect, it } from 'vitest';
import { api, fieldCode } from './client.js';
import { online, people } from './social.fixtures.js';
import { createChannel, createGuild, join } from './webhooks.fixtures.js';

/** An application authorized with `webhook.incoming`: integrations asks webhooks for the application's webhook. */

const authorize = (token: string, appId: string, body: Record<string, unknown>) =>
  api('POST', `/oauth2/authorize?client_id=${appId}&scope=webhook.incoming`, { token, body: { authorize: true, ...body } });

describe('application webhooks', () => {
  it('when a manager authorizes an application into a channel, then an APPLICATION webhook is there, its token kept from the guild', async () => {
    const [owner, member] = await people(2);
    const guildId = await createGuild(owner, 'app hooks');
    const channel = await createChannel(owner, guildId, 'deploys');
    await join(guildId, member);
    const created = await api('POST', '/applications', { token: owner.token, body: { name: 'Deploy App' } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const appId = created.json.id as string;
    const socket = await online(owner);
    const answer = await authorize(owner.token, appId, { webhook_channel_id: channel.id });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.webhook).toMatchObject({
      type: 3,
      guild_id: guildId,
      channel_id: channel.id,
      application_id: appId,
      name: 'Deploy App',
    });
    expect(answer.json.webhook).not.toHaveProperty('token');
    const isUpdate = (d: { t: string | null; d: Record<string, unknown> }) => d.t === 'WEBHOOKS_UPDATE' && d.d.channel_id === channel.id;
    await socket.ws.takeThrough(isUpdate);
    expect(socket.ws.dispatches().find(isUpdate)?.d).toEqual({ guild_id: guildId, channel_id: channel.id });
    socket.ws.close();
    const made = answer.json.webhook as { id: string };
    const listed = await api('GET', `/channels/${channel.id}/webhooks`, { token: owner.token });
    const hook = (listed.json as unknown as Record<string, unknown>[]).find((w) => w.id === made.id);
    expect(hook).toMatchObject({ type: 3, application_id: appId, user: { id: owner.id } });
    expect(hook).not.toHaveProperty('token');
    expect(hook).not.toHaveProperty('url');
  });

  it('when the channel is missing, unknown, or not the user’s to manage, then 50035, 10003 and 50013, and no webhook is made', async () => {
    const [owner, member] = await people(2);
    const guildId = await createGuild(owner, 'app hooks refused');
    const channel = await createChannel(owner, guildId, 'deploys');
    await join(guildId, member);
    const appId = (await api('POST', '/applications', { token: owner.token, body: { name: 'Refused App' } })).json.id as string;
    const missing = await authorize(owner.token, appId, {});
    expect(missing.status).toBe(400);
    expect(fieldCode(missing.json, 'webhook_channel_id')).toBe('BASE_TYPE_REQUIRED');
    expect((await authorize(owner.token, appId, { webhook_channel_id: '1234567890123' })).json.code).toBe(10003);
    const denied = await authorize(member.token, appId, { webhook_channel_id: channel.id });
    expect(denied.status).toBe(403);
    expect(denied.json.code).toBe(50013);
    expect((await api('GET', `/channels/${channel.id}/webhooks`, { token: owner.token })).json).toEqual([]);
  });
});
