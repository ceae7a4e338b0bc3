import { afterAll, describe, expect, it } from 'vitest';
import { api, fieldCode } from './client.js';
import {
  closeSocialGrpc,
  expectNoContent,
  people,
  person,
  settle,
  socialGrpc,
  strangerId,
  type Person,
  peopleOnline,
  type Tuple,
} from './social.fixtures.js';
import type { Dispatch } from './ws-client.js';

interface GameRelationship {
  id: string;
  application_id: string;
  type: number;
  user?: { id: string; username: string };
  since: string;
  dm_access_type: number;
  user_id: string;
}

const base = '/users/@me/game-relationships';

/** An application both users (or only some) authorized, as the OAuth2 side records it over gRPC. */
async function authorize(app: string, ...users: Person[]): Promise<void> {
  for (const u of users) await socialGrpc().recordApplicationAuthorization({ userId: u.id, applicationId: app });
}

async function gameRows(p: Person): Promise<GameRelationship[]> {
  const res = await api('GET', base, { token: p.token });
  expect(res.status).toBe(200);
  return res.json as unknown as GameRelationship[];
}

/** `ADD 4 app1` / `REMOVE 1 app2`, naming applications by their order in `apps`. */
function gameSig(d: Dispatch, apps: string[]): string {
  const data = d.d as unknown as GameRelationship;
  return `${d.t.replace(/^GAME_RELATIONSHIP_/, '')} ${data.type} app${apps.indexOf(data.application_id) + 1}`;
}

// Application ids in increasing order, so "the lowest shared application" is the first.
function apps<N extends number>(n: N): Tuple<string, N> {
  const first = BigInt(strangerId());
  return Array.from({ length: n }, (_, i) => String(first + BigInt(i))) as Tuple<string, N>;
}

afterAll(() => closeSocialGrpc());

describe.concurrent('game relationships through the edge', () => {
  it('when A sends a game request by username and B accepts by user, then both get GAME_RELATIONSHIP_ADD and GET shows the rows', async () => {
    const [a, b] = await peopleOnline(2);
    const [app] = apps(1);
    try {
      await authorize(app, a, b);
      expectNoContent(await api('POST', base, { token: a.token, body: { username: b.username, application_id: app } }));
      const [[addA], [addB]] = await Promise.all([settle(a), settle(b)]);
      expect(addA).toMatchObject({
        t: 'GAME_RELATIONSHIP_ADD',
        d: { id: b.id, application_id: app, type: 4, user: { id: b.id, username: b.username }, dm_access_type: 0, user_id: a.id },
      });
      expect(addB).toMatchObject({
        t: 'GAME_RELATIONSHIP_ADD',
        d: { id: a.id, application_id: app, type: 3, user: { id: a.id }, user_id: b.id },
      });
      expect(Date.parse(addA!.d.since as string)).not.toBeNaN();
      expect(await gameRows(a)).toEqual([addA!.d]);
      expect(await gameRows(b)).toEqual([addB!.d]);

      expectNoContent(await api('PUT', `${base}/${a.id}`, { token: b.token, body: { type: 1 } }));
      const [gotA, gotB] = await Promise.all([settle(a), settle(b)]);
      expect(gotA.map((d) => gameSig(d, [app]))).toEqual(['ADD 1 app1']);
      expect(gotB.map((d) => gameSig(d, [app]))).toEqual(['ADD 1 app1']);
      expect(await gameRows(a)).toMatchObject([{ id: b.id, type: 1, application_id: app, user_id: a.id }]);
      expect(await gameRows(b)).toMatchObject([{ id: a.id, type: 1, application_id: app, user_id: b.id }]);
    } finally {
      a.ws.close();
      b.ws.close();
    }
  });

  it('when the request names no application, then the lowest one both authorized is used', async () => {
    const [a, b] = await people(2);
    const [onlyA, shared1, shared2] = apps(3);
    await authorize(onlyA, a);
    await authorize(shared1, a, b);
    await authorize(shared2, a, b);
    expectNoContent(await api('POST', base, { token: a.token, body: { username: b.username } }));
    expect(await gameRows(b)).toMatchObject([{ id: a.id, type: 3, application_id: shared1 }]);
  });

  it('when B accepts by application, then friends in that application; with no request to accept, then 80005', async () => {
    const [a, b] = await peopleOnline(2);
    const [app1, app2] = apps(2);
    try {
      await authorize(app1, a, b);
      await authorize(app2, a, b);
      expectNoContent(await api('PUT', `${base}/${b.id}`, { token: a.token, body: { application_id: app2 } }));
      await Promise.all([settle(a), settle(b)]);

      // Nothing was asked in app1: by application only accepts.
      const refused = await api('PUT', `${base}/${a.id}/${app1}`, { token: b.token, body: {} });
      expect(refused.status).toBe(400);
      expect(refused.json.code).toBe(80005);

      expectNoContent(await api('PUT', `${base}/${a.id}/${app2}`, { token: b.token, body: { type: 1 } }));
      const [gotA, gotB] = await Promise.all([settle(a), settle(b)]);
      expect(gotA.map((d) => gameSig(d, [app1, app2]))).toEqual(['ADD 1 app2']);
      expect(gotB.map((d) => gameSig(d, [app1, app2]))).toEqual(['ADD 1 app2']);
      expect(await gameRows(b)).toMatchObject([{ id: a.id, type: 1, application_id: app2 }]);
    } finally {
      a.ws.close();
      b.ws.close();
    }
  });

  it('when accepting (type 1) with no incoming request, by user or by application, then 80005 and nothing changes', async () => {
    const [a, b] = await people(2);
    const [app] = apps(1);
    await authorize(app, a, b);
    for (const path of [`${base}/${b.id}`, `${base}/${b.id}/${app}`]) {
      const res = await api('PUT', path, { token: a.token, body: { type: 1 } });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe(80005);
    }
    // Having asked oneself is not something to accept either.
    expectNoContent(await api('PUT', `${base}/${b.id}`, { token: a.token, body: {} }));
    const own = await api('PUT', `${base}/${b.id}`, { token: a.token, body: { type: 1 } });
    expect(own.json.code).toBe(80005);
    expect(await gameRows(a)).toMatchObject([{ id: b.id, type: 4 }]);
  });

  it('when removed by application, then only that one goes and both get GAME_RELATIONSHIP_REMOVE; removed by user, then all go', async () => {
    const [a, b] = await peopleOnline(2);
    const [app1, app2] = apps(2);
    const all = [app1, app2];
    try {
      await authorize(app1, a, b);
      await authorize(app2, a, b);
      for (const app of all) {
        expectNoContent(await api('PUT', `${base}/${b.id}`, { token: a.token, body: { application_id: app } }));
        expectNoContent(await api('PUT', `${base}/${a.id}/${app}`, { token: b.token, body: {} }));
      }
      await Promise.all([settle(a), settle(b)]);
      const friendsSince = (await gameRows(a)).find((r) => r.application_id === app1)!.since;

      expectNoContent(await api('DELETE', `${base}/${b.id}/${app1}`, { token: a.token }));
      const [gotA, gotB] = await Promise.all([settle(a), settle(b)]);
      expect(gotA.map((d) => gameSig(d, all))).toEqual(['REMOVE 1 app1']);
      expect(gotB.map((d) => gameSig(d, all))).toEqual(['REMOVE 1 app1']);
      // The documented Game Relationship Remove structure.
      expect(gotA[0]!.d).toEqual({ id: b.id, application_id: app1, type: 1, since: friendsSince, dm_access_type: 0, user_id: a.id });
      expect(gotB[0]!.d).toMatchObject({ id: a.id, application_id: app1, type: 1, dm_access_type: 0, user_id: b.id });
      expect((await gameRows(a)).map((r) => r.application_id)).toEqual([app2]);

      expectNoContent(await api('PUT', `${base}/${b.id}`, { token: a.token, body: { application_id: app1 } }));
      await Promise.all([settle(a), settle(b)]);
      expectNoContent(await api('DELETE', `${base}/${a.id}`, { token: b.token }));
      const [afterA, afterB] = await Promise.all([settle(a), settle(b)]);
      expect(afterA.map((d) => gameSig(d, all)).sort()).toEqual(['REMOVE 1 app2', 'REMOVE 4 app1']);
      expect(afterB.map((d) => gameSig(d, all)).sort()).toEqual(['REMOVE 1 app2', 'REMOVE 3 app1']);
      expect(await gameRows(a)).toEqual([]);
      expect(await gameRows(b)).toEqual([]);
    } finally {
      a.ws.close();
      b.ws.close();
    }
  });

  it('when the users share no authorized application, then 80009 on every way of asking', async () => {
    const [a, b] = await peopleOnline(2);
    const [appA, appB] = apps(2);
    try {
      await authorize(appA, a);
      await authorize(appB, b);
      const attempts = [
        api('POST', base, { token: a.token, body: { username: b.username } }),
        api('POST', base, { token: a.token, body: { username: b.username, application_id: appA } }),
        api('PUT', `${base}/${b.id}`, { token: a.token, body: {} }),
        api('PUT', `${base}/${b.id}`, { token: a.token, body: { application_id: appB } }),
        api('PUT', `${base}/${b.id}/${appA}`, { token: a.token, body: {} }),
      ];
      for (const res of await Promise.all(attempts)) {
        expect(res.status).toBe(400);
        expect(res.json).toEqual({ code: 80009, message: 'Users have no common application authorization.' });
      }
      expect(await settle(a)).toEqual([]);
      expect(await settle(b)).toEqual([]);
      expect(await gameRows(b)).toEqual([]);
    } finally {
      a.ws.close();
      b.ws.close();
    }
  });

  it('when the target is unknown, oneself, or the type is not allowed, then 80004, 10013, 80003 or 50035', async () => {
    const a = await person();
    const unknownName = await api('POST', base, { token: a.token, body: { username: 'nobody_by_this_name_at_all' } });
    expect(unknownName.json.code).toBe(80004);
    expect((await api('PUT', `${base}/${strangerId()}`, { token: a.token, body: {} })).json.code).toBe(10013);
    expect((await api('PUT', `${base}/${a.id}`, { token: a.token, body: {} })).json.code).toBe(80003);
    const badType = await api('PUT', `${base}/${strangerId()}`, { token: a.token, body: { type: 2 } });
    expect(badType.json.code).toBe(50035);
    expect(fieldCode(badType.json, 'type')).toBe('BASE_TYPE_CHOICES');
    const byAppType = await api('PUT', `${base}/${strangerId()}/${strangerId()}`, { token: a.token, body: { type: -1 } });
    expect(byAppType.json.code).toBe(50035);
    expect(fieldCode(byAppType.json, 'type')).toBe('BASE_TYPE_CHOICES');
  });
});
