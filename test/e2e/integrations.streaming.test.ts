import { describe, expect, it } from 'vitest';
import { api } from './client.js';
import { peopleOnline, type Online } from './social.fixtures.js';
import type { Dispatch } from './ws-client.js';

/*
 * A Twitch integration through `npm start`'s gateway, over the development providers it runs
 * (their Twitch speaks Helix, its built-in broadcaster has subscriber emotes): the streamer
 * connects their account, enables it in a guild with emoticons, and their socket hears the
 * emotes arrive as the guild's managed emojis and leave with the integration.
 */

type Body = Record<string, unknown> & { id: string };

/** The development Twitch's built-in broadcaster (its consent page approves as it). */
const BROADCASTER = '141981764';

async function connectTwitch(user: Online): Promise<void> {
  const start = await api('GET', '/connections/twitch/authorize', { token: user.token });
  expect(start.status).toBe(200);
  const consent = await fetch(start.json.url as string, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  const done = await api('POST', '/connections/twitch/callback', {
    token: user.token,
    body: { code: back.searchParams.get('code'), state: back.searchParams.get('state') },
  });
  expect(done.status).toBe(200);
  expect(done.json).toMatchObject({ id: BROADCASTER, type: 'twitch' });
}

describe('Twitch emoticons through the gateway', () => {
  it('when a streamer enables emoticons, then the socket gets GUILD_EMOJIS_UPDATE with the subscriber emotes for its role; deleting the integration empties them', async () => {
    const [streamer] = await peopleOnline(1);
    const created = await api('POST', '/guilds', { token: streamer.token, body: { name: 'Emotes guild' } });
    expect(created.status).toBe(201);
    const guildId = created.json.id as string;
    await streamer.ws.takeThrough((d) => d.t === 'GUILD_CREATE' && (d.d as Body).id === guildId);
    await connectTwitch(streamer);

    const enabled = await api('POST', `/guilds/${guildId}/integrations`, {
      token: streamer.token,
      body: { type: 'twitch', id: BROADCASTER },
    });
    expect(enabled.status).toBe(204);
    const [integration] = (await api('GET', `/guilds/${guildId}/integrations`, { token: streamer.token })).json as unknown as Body[];
    expect(integration).toMatchObject({ type: 'twitch', enable_emoticons: false });

    const isEmojis = (d: Dispatch) => d.t === 'GUILD_EMOJIS_UPDATE' && (d.d as Body).guild_id === guildId;
    const on = await api('PATCH', `/guilds/${guildId}/integrations/${integration!.id}`, {
      token: streamer.token,
      body: { enable_emoticons: true },
    });
    expect(on.status).toBe(204);
    await streamer.ws.takeThrough(isEmojis);
    const update = streamer.ws.dispatches().filter(isEmojis).at(-1)!.d as { emojis: Body[] };
    const emoji = (name: string, animated: boolean) =>
      expect.objectContaining({ name, animated, managed: true, available: true, require_colons: true, roles: [integration!.role_id] });
    expect(update.emojis).toEqual(expect.arrayContaining([emoji('kithdevWave', false), emoji('kithdevParty', true)]));
    // The follower emote is not a subscriber emote.
    expect(update.emojis).toHaveLength(2);
    expect((await api('GET', `/guilds/${guildId}`, { token: streamer.token })).json.emojis).toEqual(update.emojis);

    expect((await api('DELETE', `/guilds/${guildId}/integrations/${integration!.id}`, { token: streamer.token })).status).toBe(204);
    await streamer.ws.takeThrough(isEmojis);
    expect(streamer.ws.dispatches().filter(isEmojis).at(-1)!.d).toEqual({ guild_id: guildId, emojis: [] });
    streamer.ws.close();
  });
});
