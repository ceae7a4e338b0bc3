import { afterAll, describe, expect, it } from 'vitest';
import { DiscordAPIError } from '@discordjs/rest';
import { api, fieldCode, userRest } from './client.js';
import {
  befriend,
  closeSocialGrpc,
  expectNoContent,
  people,
  person,
  rowFor,
  socialGrpc,
  strangerId,
  type Person,
} from './social.fixtures.js';

const UNAUTHORIZED = { code: 0, message: '401: Unauthorized' };
const APP = '1237856342484717650';

/** The 17 endpoints of the Relationships section, with a body each would accept. */
const ENDPOINTS: [string, (id: string) => string, unknown][] = [
  ['GET', () => '/users/@me/relationships', undefined],
  ['POST', () => '/users/@me/relationships', { username: 'someone', discriminator: null }],
  ['PUT', (id) => `/users/@me/relationships/${id}`, {}],
  ['PUT', (id) => `/users/@me/relationships/${id}/ignore`, undefined],
  ['DELETE', (id) => `/users/@me/relationships/${id}/ignore`, undefined],
  ['PATCH', (id) => `/users/@me/relationships/${id}`, { nickname: 'x' }],
  ['DELETE', (id) => `/users/@me/relationships/${id}`, undefined],
  ['DELETE', () => '/users/@me/relationships', { filters: [1] }],
  ['POST', () => '/users/@me/relationships/bulk', { user_ids: ['1'], token: 'x' }],
  ['GET', () => '/users/@me/game-relationships', undefined],
  ['POST', () => '/users/@me/game-relationships', { username: 'someone' }],
  ['PUT', (id) => `/users/@me/game-relationships/${id}`, {}],
  ['PUT', (id) => `/users/@me/game-relationships/${id}/${APP}`, {}],
  ['DELETE', (id) => `/users/@me/game-relationships/${id}`, undefined],
  ['DELETE', (id) => `/users/@me/game-relationships/${id}/${APP}`, undefined],
  ['GET', () => '/friend-suggestions', undefined],
  ['DELETE', (id) => `/friend-suggestions/${id}`, undefined],
];
const endpointCases = ENDPOINTS.map(([method, path, body]) => ({ name: `${method} ${path('{id}')}`, method, path, body }));

const send = (from: Person, to: { username: string }, discriminator: string | null = null) =>
  api('POST', '/users/@me/relationships', { token: from.token, body: { username: to.username, discriminator } });
const put = (from: Person, toId: string, body: unknown = {}) => api('PUT', `/users/@me/relationships/${toId}`, { token: from.token, body });

function expectError(res: { status: number; json: Record<string, unknown> }, status: number, code: number): void {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.json.code).toBe(code);
}

afterAll(() => closeSocialGrpc());

describe.concurrent('every relationships endpoint refuses what it must', () => {
  it.for(endpointCases)('when $name is called without a token, then 401', async ({ method, path, body }) => {
    const res = await api(method, path(strangerId()), { body });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(UNAUTHORIZED);
  });

  it.for(endpointCases)('when $name is called with a garbage token, then 401', async ({ method, path, body }) => {
    const res = await api(method, path(strangerId()), { token: 'MTIz.garbage.token', body });
    expect(res.status).toBe(401);
    expect(res.json).toEqual(UNAUTHORIZED);
  });

  it.for(endpointCases.filter((e) => e.method !== 'GET'))('when $name gets malformed JSON, then 400 50109', async ({ method, path }) => {
    const { token } = await person();
    const res = await api(method, path(strangerId()), { token, raw: '{"username": ' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: 50109, message: 'The request body contains invalid JSON.' });
  });

  it.for(endpointCases.filter((e) => e.path('{id}').includes('{id}')))(
    'when $name names a user id that is not a snowflake, then 50035 on user_id',
    async ({ method, path, body }) => {
      const { token } = await person();
      const res = await api(method, path('not-a-snowflake'), { token, body });
      expectError(res, 400, 50035);
      expect(fieldCode(res.json, 'user_id')).toBe('NUMBER_TYPE_COERCE');
    },
  );

  it.for(['PUT', 'DELETE'])('when %s by application names an application id that is not a snowflake, then 50035', async (method) => {
    const { token } = await person();
    const res = await api(method, `/users/@me/game-relationships/${strangerId()}/app`, { token, body: method === 'PUT' ? {} : undefined });
    expectError(res, 400, 50035);
    expect(fieldCode(res.json, 'application_id')).toBe('NUMBER_TYPE_COERCE');
  });
});

describe.concurrent('send friend request by username', () => {
  it('when the username does not exist, then 80004', async () => {
    const a = await person();
    const res = await send(a, { username: 'nobody_by_this_name_at_all' });
    expectError(res, 400, 80004);
    expect(res.json.message).toBe('No users with that username exist.');
  });

  it('when the discriminator does not match a migrated user ("1234" for "0"), then 80004; "0" and null find them', async () => {
    const [a, b, c] = await people(3);
    expectError(await send(a, b, '1234'), 400, 80004);
    expect(await rowFor(b, a)).toBeUndefined();
    expectNoContent(await send(a, b, '0'));
    expectNoContent(await send(a, c, null));
  });

  it('when the username is one’s own, then 80003', async () => {
    const a = await person();
    expectError(await send(a, a), 400, 80003);
  });

  it('when the username is missing, then 50035 BASE_TYPE_REQUIRED on username', async () => {
    const a = await person();
    const res = await api('POST', '/users/@me/relationships', { token: a.token, body: { discriminator: null } });
    expectError(res, 400, 50035);
    expect(fieldCode(res.json, 'username')).toBe('BASE_TYPE_REQUIRED');
  });

  it('when they are friends already, then 80007 by username and by id', async () => {
    const [a, b] = await people(2);
    await befriend(a, b);
    expectError(await send(a, b), 400, 80007);
    expectError(await put(a, b.id), 400, 80007);
    expect(await rowFor(a, b)).toMatchObject({ type: 1 });
  });

  it('when either one blocks the other, then 80001 both ways', async () => {
    const [a, b] = await people(2);
    expectNoContent(await put(a, b.id, { type: 2 }));
    expectError(await send(a, b), 400, 80001);
    expectError(await send(b, a), 400, 80001);
    expectError(await put(b, a.id), 400, 80001);
    expect(await rowFor(b, a)).toBeUndefined();
  });

  it('when the target takes requests from mutual friends only, then a stranger gets 80000 and someone sharing a friend gets through', async () => {
    const [target, stranger, acquaintance, mutual] = await people(4);
    const settings = await api('PATCH', '/users/@me/settings', {
      token: target.token,
      body: { friend_source_flags: { all: false, mutual_friends: true, mutual_guilds: false } },
    });
    expect(settings.status).toBe(200);
    expect(settings.json.friend_source_flags).toEqual({ mutual_friends: true, mutual_guilds: false });

    expectError(await send(stranger, target), 400, 80000);
    expectError(await put(stranger, target.id), 400, 80000);
    expect(await rowFor(target, stranger)).toBeUndefined();

    // The target may still ask anyone; a friend they share makes the acquaintance no stranger.
    await befriend(target, mutual);
    await befriend(acquaintance, mutual);
    expectNoContent(await send(acquaintance, target));
    expect(await rowFor(target, acquaintance)).toMatchObject({ type: 3, stranger_request: false });
  });
});

describe.concurrent('create relationship', () => {
  it('when type 1 is sent without a request from them, then 80005', async () => {
    const [a, b] = await people(2);
    expectError(await put(a, b.id, { type: 1 }), 400, 80005);
    expect(await rowFor(a, b)).toBeUndefined();
  });

  it.for([3, 0, 4, 5, 'x'])('when type is %j, then 50035 on type', async (type) => {
    const [a, b] = await people(2);
    const res = await put(a, b.id, { type });
    expectError(res, 400, 50035);
    expect(fieldCode(res.json, 'type')).toBe(typeof type === 'string' ? 'BASE_TYPE_BAD_INT' : 'BASE_TYPE_CHOICES');
    expect(await rowFor(a, b)).toBeUndefined();
  });

  it.for([{}, { type: -1 }, { type: 1 }, { type: 2 }])('when the user id is unknown and the body is %j, then 10013', async (body) => {
    const a = await person();
    const res = await put(a, strangerId(), body);
    expectError(res, 404, 10013);
    expect(res.json.message).toBe('Unknown User');
  });

  it('when the user id is one’s own, then 80003 for a request and for a block', async () => {
    const a = await person();
    expectError(await put(a, a.id), 400, 80003);
    expectError(await put(a, a.id, { type: 2 }), 400, 80003);
  });

  it('when a stranger’s request is accepted without confirm_stranger_request, then 400 80013 and nothing changes; with it, friends', async () => {
    const [a, b] = await people(2);
    expectNoContent(await put(b, a.id));
    expect(await rowFor(a, b)).toMatchObject({ type: 3, stranger_request: true });
    for (const body of [{}, { type: 1 }, { type: -1, confirm_stranger_request: false }]) {
      const res = await put(a, b.id, body);
      expectError(res, 400, 80013);
      expect(res.json).toEqual({ code: 80013, message: expect.stringMatching(/^You must confirm the friend request/) });
    }
    const refused = await userRest(a.token, { retries: 0 })
      .put(`/users/@me/relationships/${b.id}`, { body: {} })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect(refused).toMatchObject({ status: 400, code: 80013 });
    expect(await rowFor(a, b)).toMatchObject({ type: 3 });
    expect(await rowFor(b, a)).toMatchObject({ type: 4 });
    expectNoContent(await put(a, b.id, { type: 1, confirm_stranger_request: true }));
    expect(await rowFor(a, b)).toMatchObject({ type: 1 });
    expect(await rowFor(b, a)).toMatchObject({ type: 1 });
  });
});

describe.concurrent('ignore, nickname and remove', () => {
  it('when one ignores oneself, then 50035 RELATIONSHIP_INVALID_SELF', async () => {
    const a = await person();
    const res = await api('PUT', `/users/@me/relationships/${a.id}/ignore`, { token: a.token });
    expectError(res, 400, 50035);
    expect(res.json.errors).toEqual({ _errors: [{ code: 'RELATIONSHIP_INVALID_SELF', message: 'You cannot do this to yourself.' }] });
  });

  it('when an unknown user is ignored, then 10013', async () => {
    const a = await person();
    expectError(await api('PUT', `/users/@me/relationships/${strangerId()}/ignore`, { token: a.token }), 404, 10013);
  });

  it('when a nickname is set on someone who is no friend (requested, or unknown), then 80006', async () => {
    const [a, b] = await people(2);
    expectNoContent(await put(a, b.id));
    for (const id of [b.id, strangerId()])
      expectError(await api('PATCH', `/users/@me/relationships/${id}`, { token: a.token, body: { nickname: 'pal' } }), 400, 80006);
  });

  it.for(['', 'x'.repeat(33)])('when the nickname is %j long, then 50035 BASE_TYPE_BAD_LENGTH', async (nickname) => {
    const [a, b] = await people(2);
    await befriend(a, b);
    const res = await api('PATCH', `/users/@me/relationships/${b.id}`, { token: a.token, body: { nickname } });
    expectError(res, 400, 50035);
    expect(fieldCode(res.json, 'nickname')).toBe('BASE_TYPE_BAD_LENGTH');
    expect(await rowFor(a, b)).toMatchObject({ nickname: null });
  });

  it('when the nickname is 32 characters, then it is kept; null clears it', async () => {
    const [a, b] = await people(2);
    await befriend(a, b);
    const nickname = 'n'.repeat(32);
    expectNoContent(await api('PATCH', `/users/@me/relationships/${b.id}`, { token: a.token, body: { nickname } }));
    expect(await rowFor(a, b)).toMatchObject({ nickname });
    expect(await rowFor(b, a)).toMatchObject({ nickname: null });
    expectNoContent(await api('PATCH', `/users/@me/relationships/${b.id}`, { token: a.token, body: { nickname: null } }));
    expect(await rowFor(a, b)).toMatchObject({ nickname: null });
  });

  it('when there is nothing to remove or unignore (an unknown user too), then 204 and nothing changes', async () => {
    const a = await person();
    for (const path of [`/users/@me/relationships/${strangerId()}`, `/users/@me/relationships/${strangerId()}/ignore`])
      expectNoContent(await api('DELETE', path, { token: a.token }));
    expect((await api('GET', '/users/@me/relationships', { token: a.token })).json).toEqual([]);
  });
});

describe.concurrent('bulk endpoints refuse bad input', () => {
  it.for(['1', '2', '4', 'x'])('when bulk remove names relationship_type=%s, then 50035 on relationship_type', async (type) => {
    const a = await person();
    const res = await api('DELETE', `/users/@me/relationships?relationship_type=${type}`, { token: a.token });
    expectError(res, 400, 50035);
    expect(fieldCode(res.json, 'relationship_type')).toBe(type === 'x' ? 'BASE_TYPE_BAD_INT' : 'BASE_TYPE_CHOICES');
  });

  it('when bulk remove names relationship_type=3 (the only one allowed), then 204', async () => {
    const a = await person();
    expectNoContent(await api('DELETE', '/users/@me/relationships?relationship_type=3', { token: a.token }));
  });

  it('when bulk remove names a filter other than SPAM or IGNORED, then 50035 on filters', async () => {
    const a = await person();
    const res = await api('DELETE', '/users/@me/relationships', { token: a.token, body: { filters: [3] } });
    expectError(res, 400, 50035);
    expect((res.json.errors as { filters: Record<string, { _errors: { code: string }[] }> }).filters['0']!._errors[0]!.code).toBe(
      'BASE_TYPE_CHOICES',
    );
  });

  it('when bulk add is sent a token nobody issued, then 50035 CONTACT_SYNC_TOKEN_INVALID on token', async () => {
    const [a, b] = await people(2);
    const res = await api('POST', '/users/@me/relationships/bulk', { token: a.token, body: { user_ids: [b.id], token: 'made-up' } });
    expectError(res, 400, 50035);
    expect(fieldCode(res.json, 'token')).toBe('CONTACT_SYNC_TOKEN_INVALID');
    expect(await rowFor(b, a)).toBeUndefined();
  });

  it('when bulk add has no user ids or no token, then 50035 on the field', async () => {
    const a = await person();
    const { token } = await socialGrpc().issueContactSyncToken({ userId: a.id, userIds: [] });
    const empty = await api('POST', '/users/@me/relationships/bulk', { token: a.token, body: { user_ids: [], token } });
    expectError(empty, 400, 50035);
    expect(fieldCode(empty.json, 'user_ids')).toBe('BASE_TYPE_MIN_LENGTH');
    const tokenless = await api('POST', '/users/@me/relationships/bulk', { token: a.token, body: { user_ids: [strangerId()] } });
    expect(fieldCode(tokenless.json, 'token')).toBe('BASE_TYPE_REQUIRED');
  });
});
