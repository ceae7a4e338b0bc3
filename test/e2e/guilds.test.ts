import { DiscordAPIError } from '@discordjs/rest';
import { describe, expect, it } from 'vitest';
import { api, newUser, userRest } from './client.js';
import { GatewayClient } from './ws-client.js';

/** @discordjs/rest pointed at the edge, signed in as the user. */
const restFor = (token: string) => userRest(token);

interface Role {
  id: string;
  name: string;
  permissions: string;
  position: number;
}
interface Guild {
  id: string;
  name: string;
  owner_id: string;
  roles: Role[];
  system_channel_id: string;
  approximate_member_count?: number;
}

describe('guilds through the real gateway', () => {
  it('when @discordjs/rest creates a guild, reads it and manages roles, then the platform shapes come back', async () => {
    const { token } = await newUser();
    const rest = restFor(token);

    const guild = (await rest.post('/guilds', { body: { name: 'e2e guild' } })) as Guild;
    expect(guild).toMatchObject({ name: 'e2e guild', roles: [expect.objectContaining({ id: guild.id, name: '@everyone', position: 0 })] });
    expect(guild.roles[0]!.permissions).toMatch(/^\d+$/);

    const read = (await rest.get(`/guilds/${guild.id}`, { query: new URLSearchParams({ with_counts: 'true' }) })) as Guild;
    expect(read).toMatchObject({ id: guild.id, owner_id: guild.owner_id, approximate_member_count: 1 });

    const role = (await rest.post(`/guilds/${guild.id}/roles`, {
      body: { name: 'moderators', permissions: '2', color: 0x3498db },
    })) as Role;
    expect(role).toMatchObject({ name: 'moderators', permissions: '2', position: 1 });
    const edited = (await rest.patch(`/guilds/${guild.id}/roles/${role.id}`, { body: { name: 'mods' } })) as Role;
    expect(edited.name).toBe('mods');
    await rest.put(`/guilds/${guild.id}/members/${guild.owner_id}/roles/${role.id}`);
    const member = (await rest.get(`/guilds/${guild.id}/members/${guild.owner_id}`)) as { roles: string[] };
    expect(member.roles).toEqual([role.id]);
    const roles = (await rest.get(`/guilds/${guild.id}/roles`)) as Role[];
    expect(roles.map((r) => r.name)).toEqual(['@everyone', 'mods']);

    const mine = (await rest.get('/users/@me/guilds')) as { id: string; owner: boolean }[];
    expect(mine).toEqual([expect.objectContaining({ id: guild.id, owner: true })]);
  });

  it('when a stranger acts on a guild that exists, then @discordjs/rest raises 403 50001 Missing Access; on one that does not, 404 10004', async () => {
    const owner = await newUser();
    const stranger = await newUser();
    const guild = (await restFor(owner.token).post('/guilds', { body: { name: 'private' } })) as Guild;
    const rest = userRest(stranger.token, { retries: 0 });
    const refusal = (request: Promise<unknown>) =>
      request.then(
        () => 'answered',
        (e: unknown) => (e instanceof DiscordAPIError ? { status: e.status, code: e.code } : String(e)),
      );
    const missingAccess = { status: 403, code: 50001 };
    const unknownGuild = { status: 404, code: 10004 };
    const absent = String(BigInt(guild.id) + 4096n);
    for (const id of [guild.id, absent]) {
      const expected = id === guild.id ? missingAccess : unknownGuild;
      expect(await refusal(rest.get(`/guilds/${id}`))).toEqual(expected);
      expect(await refusal(rest.patch(`/guilds/${id}`, { body: { name: 'taken' } }))).toEqual(expected);
      expect(await refusal(rest.post(`/guilds/${id}/delete`, { body: {} }))).toEqual(expected);
      expect(await refusal(rest.delete(`/guilds/${id}`))).toEqual(expected);
      expect(await refusal(rest.get(`/guilds/${id}/channels`))).toEqual(expected);
      expect(await refusal(rest.get(`/guilds/${id}/roles`))).toEqual(expected);
      expect(await refusal(rest.post(`/guilds/${id}/roles`, { body: { name: 'x' } }))).toEqual(expected);
      expect(await refusal(rest.get(`/guilds/${id}/members`))).toEqual(expected);
      expect(await refusal(rest.get(`/guilds/${id}/bans`))).toEqual(expected);
    }
    // Nothing the stranger tried changed the guild.
    const after = (await restFor(owner.token).get(`/guilds/${guild.id}`)) as Guild;
    expect(after).toMatchObject({ id: guild.id, name: 'private', roles: [expect.objectContaining({ name: '@everyone' })] });
    expect(after.roles).toHaveLength(1);
  });

  it('when a body is bad, then the edge answers the 50035 form error', async () => {
    const { token } = await newUser();
    const res = await api('POST', '/guilds', { token, body: { name: 'x' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      code: 50035,
      errors: { name: { _errors: [expect.objectContaining({ code: 'BASE_TYPE_BAD_LENGTH' })] } },
    });
  });

  it('when a connected user creates a guild, then their socket receives GUILD_CREATE with the guild, its channels and their member', async () => {
    const { token } = await newUser();
    const ws = await GatewayClient.connect(token);
    try {
      const guild = (await restFor(token).post('/guilds', { body: { name: 'live guild' } })) as Guild;
      const isTheGuild = (d: { t?: string | null; d: unknown }) => d.t === 'GUILD_CREATE' && (d.d as { id?: string }).id === guild.id;
      await ws.takeThrough(isTheGuild);
      const created = ws.dispatches().find(isTheGuild)!;
      expect(created.d).toMatchObject({
        id: guild.id,
        name: 'live guild',
        member_count: 1,
        channels: [expect.objectContaining({ id: guild.system_channel_id, name: 'general' })],
        members: [expect.objectContaining({ user: expect.objectContaining({ id: ws.ready.d.user.id }) })],
      });
    } finally {
      ws.close();
    }
  });
});
