import { afterAll, expect } from 'vitest';
import { createClient, type ServiceClient } from '@kith/platform';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { api } from './client.js';
import { portOffset, type Person } from './social.fixtures.js';

/** VIEW_CHANNEL (1 << 10). */
export const VIEW_CHANNEL = '1024';

let grpc: ServiceClient<typeof GuildsService> | undefined;

/** Guilds' gRPC API: members join through AddMember (as invites will). */
export function guildsGrpc(): ServiceClient<typeof GuildsService> {
  grpc ??= createClient(GuildsService, `127.0.0.1:${50054 + portOffset()}`, 5000);
  return grpc;
}
afterAll(() => grpc?.close());

export interface Webhook {
  id: string;
  type: number;
  guild_id: string;
  channel_id: string;
  name: string;
  avatar: string | null;
  token?: string;
  url?: string;
  user?: { id: string };
}

export async function createGuild(owner: Person, name = 'webhooks e2e'): Promise<string> {
  const res = await api('POST', '/guilds', { token: owner.token, body: { name } });
  expect(res.status).toBe(201);
  return res.json.id as string;
}

/** A channel of the guild; `hidden` denies VIEW_CHANNEL to @everyone (the owner still sees it). */
export async function createChannel(owner: Person, guildId: string, name: string, opts: { hidden?: boolean; type?: number } = {}) {
  const res = await api('POST', `/guilds/${guildId}/channels`, {
    token: owner.token,
    body: {
      name,
      type: opts.type ?? 0,
      ...(opts.hidden ? { permission_overwrites: [{ id: guildId, type: 0, allow: '0', deny: VIEW_CHANNEL }] } : {}),
    },
  });
  expect(res.status).toBe(201);
  return res.json as { id: string; type: number; available_tags?: { id: string }[] };
}

export async function createWebhook(owner: Person, channelId: string, name = 'Captain Hook'): Promise<Webhook> {
  const res = await api('POST', `/channels/${channelId}/webhooks`, { token: owner.token, body: { name } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as unknown as Webhook;
}

export async function join(guildId: string, user: Person): Promise<void> {
  expect((await guildsGrpc().addMember({ guildId, userId: user.id })).errorCode).toBe(0);
}

/** Polls until `check` holds (an event consumer's effect), at most ~10 s: the platform's shared helper. */
export { eventually } from '@kith/platform/testing';
