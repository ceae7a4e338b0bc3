import { DiscordAPIError, REST } from '@discordjs/rest';
import { Routes, type APIUser } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../../gateway/test/integration/harness.js';
import {
  api,
  newApplication,
  newUser,
  startIntegrationsStack,
  stopIntegrationsStack,
  type Body,
  type IntegrationsStack,
  type StackUser,
} from './harness.js';

/*
 * Reset Application Bot Token through the edge with real auth: the owner, after a recent MFA
 * verification (a password re-entry for an account without MFA), gets the bot's token once, and
 * `@discordjs/rest` signs in with it as the bot.
 */

let stack: IntegrationsStack;

beforeAll(async () => {
  stack = await startIntegrationsStack();
});
afterAll(() => stopIntegrationsStack(stack));

const reset = (user: StackUser | null, appId: string, headers: Record<string, string> = {}) =>
  call<Body>(stack.base, `/api/v9/applications/${appId}/bot/reset`, {
    method: 'POST',
    ...(user ? { token: user.token } : {}),
    headers,
  });

/** The elevation JWT of `POST /mfa/finish` for the ticket a refusal carried, proven with the password. */
async function elevate(user: StackUser, refusal: Body): Promise<string> {
  const finished = await api(stack, user, 'POST', '/mfa/finish', { ticket: refusal.mfa.ticket, mfa_type: 'password', data: user.password });
  expect(finished.status).toBe(200);
  return finished.body.token as string;
}

/** A REST client as a bot developer makes one, against this stack's edge. */
const restWith = (token: string) => new REST({ api: `${stack.base}/api`, version: '9', retries: 0 }).setToken(token);

describe('Reset Application Bot Token', () => {
  it('when the owner resets after verifying, then the token is answered once and @discordjs/rest gets the bot as GET /users/@me', async () => {
    const owner = await newUser(stack);
    const app = await newApplication(stack, owner, 'Token Helper');
    expect(app.id).toBe(app.bot.id);

    const refused = await reset(owner, app.id);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 60003, mfa: { ticket: expect.any(String) } });
    const elevation = await elevate(owner, refused.body);
    const issued = await reset(owner, app.id, { 'x-discord-mfa-authorization': elevation });
    expect(issued.status).toBe(200);
    const token = issued.body.token as string;
    expect(Object.keys(issued.body)).toEqual(['token']);
    // At least 128 random bits after the id part.
    expect(Buffer.from(token.split('.')[1]!, 'base64url').length).toBeGreaterThanOrEqual(16);
    // Shown once: the application never carries it.
    expect(JSON.stringify((await api(stack, owner, 'GET', `/applications/${app.id}`)).body)).not.toContain(token);

    const me = (await restWith(token).get(Routes.user())) as APIUser;
    expect(me).toMatchObject({ id: app.bot.id, bot: true, username: 'Token Helper' });

    // The platform's rule: a bot token only under `Bot `, a person's token never under it.
    expect((await call(stack.base, '/api/v9/users/@me', { authorization: token })).status).toBe(401);
    const asBot = await restWith(owner.token)
      .get(Routes.user())
      .catch((err: unknown) => err);
    expect(asBot).toBeInstanceOf(DiscordAPIError);
    expect((asBot as DiscordAPIError).status).toBe(401);

    // A second reset revokes the first token: auth refuses it at once, the edge once the revocation reaches it.
    const again = await reset(owner, app.id, { 'x-discord-mfa-authorization': elevation });
    expect(again.status).toBe(200);
    expect((await stack.authGrpc.validateToken({ token })).valid).toBe(false);
    expect(await restWith(again.body.token).get(Routes.user())).toMatchObject({ id: app.bot.id });
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status !== 401 && Date.now() < deadline)
      status = (await call(stack.base, '/api/v9/users/@me', { authorization: `Bot ${token}` })).status;
    expect(status).toBe(401);
  });

  it('when the caller is anonymous, not the owner, the application unknown or the elevation forged, then the platform’s errors and no token', async () => {
    const owner = await newUser(stack);
    const stranger = await newUser(stack);
    const app = await newApplication(stack, owner, 'Guarded');
    expect((await reset(null, app.id)).status).toBe(401);
    expect((await reset(stranger, app.id)).body.code).toBe(50001);
    expect((await reset(owner, '1')).body.code).toBe(10002);
    expect((await reset(owner, 'abc')).body.code).toBe(50035);
    const forged = await reset(owner, app.id, { 'x-discord-mfa-authorization': 'eyJhbGciOiJIUzI1NiJ9.e30.AAAA' });
    expect(forged.body.code).toBe(60003);
    // Another user's elevation proves nothing for this owner.
    const strangerRefusal = await api(stack, stranger, 'POST', `/applications/${app.id}/bot/reset`);
    expect(strangerRefusal.body.code).toBe(50001);
    const mine = await reset(owner, app.id);
    const elevation = await elevate(owner, mine.body);
    expect((await reset(stranger, app.id, { 'x-discord-mfa-authorization': elevation })).body.code).toBe(50001);
    // The bot has no token yet: its user cannot be signed in as.
    expect((await stack.authGrpc.validateToken({ token: `${Buffer.from(app.bot.id).toString('base64url')}.x` })).valid).toBe(false);
  });
});
