import { DiscordAPIError, REST } from '@discordjs/rest';
import { describe, expect, inject, it } from 'vitest';
import { newUser, userRest } from './client.js';

/** What the edge does to a request before any service sees it, as real clients send it. */

interface User {
  id: string;
  username: string;
}

async function refusal(request: Promise<unknown>): Promise<number> {
  const err = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof DiscordAPIError)) throw new Error(`expected a DiscordAPIError, got ${String(err)}`);
  return err.status;
}

describe('paths as clients encode them', () => {
  it('when @discordjs/rest asks for an explicitly encoded @me, then the edge decodes it and the service answers for the caller', async () => {
    const user = await newUser();
    const rest = userRest(user.token);

    const me = (await rest.get(`/users/${encodeURIComponent('@me')}`)) as User;

    expect(me.username).toBe(user.username);
  });

  it('when @discordjs/rest edits its own member as /members/%40me, then the nickname changes', async () => {
    const user = await newUser();
    const rest = userRest(user.token);
    const guild = (await rest.post('/guilds', { body: { name: 'encoded me' } })) as { id: string };

    const member = (await rest.patch(`/guilds/${guild.id}/members/${encodeURIComponent('@me')}`, { body: { nick: 'percent' } })) as {
      nick: string;
      user: User;
    };

    expect(member.nick).toBe('percent');
    expect(member.user.username).toBe(user.username);
  });
});

describe('rate limit headers', () => {
  it('when any route answers, then the answer carries the X-RateLimit-* headers @discordjs/rest schedules by', async () => {
    const user = await newUser();
    const res = await fetch(`${inject('baseUrl')}/users/@me`, { headers: { authorization: user.token } });
    expect(res.status).toBe(200);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-reset-after', 'x-ratelimit-bucket'])
      expect(res.headers.get(name), name).not.toBeNull();
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeLessThan(Number(res.headers.get('x-ratelimit-limit')));
  });
});

describe('token forms', () => {
  it('when a user token is sent under `Bot ` (the library’s default) or `Bearer `, then it is 401; raw, it is accepted', async () => {
    const user = await newUser();
    const api = `${inject('gatewayOrigin')}/api`;

    expect(await refusal(new REST({ api, version: '10', retries: 0 }).setToken(user.token).get('/users/@me'))).toBe(401);
    expect(await refusal(new REST({ api, version: '10', retries: 0, authPrefix: 'Bearer' }).setToken(user.token).get('/users/@me'))).toBe(
      401,
    );
    expect(((await userRest(user.token).get('/users/@me')) as User).username).toBe(user.username);
  });
});
