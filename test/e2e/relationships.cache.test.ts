import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { api } from './client.js';
import {
  closeSocialGrpc,
  expectNoContent,
  people,
  relationships,
  rowSig,
  socialDatabase,
  socialGrpc,
  type Person,
  type Relationship,
  put,
} from './social.fixtures.js';

/**
 * Social keeps each user's rendered list and answers it while the user's relationship version and
 * the users it shows are unchanged. Every test reads both users' lists BEFORE a change (so both are
 * cached) and right after it: the very next GET must show the change, on both sides.
 */

/** Each row of `p`'s list as `<id> <rowSig>`, sorted: what the list says, compactly. */
async function listed(p: Person): Promise<string[]> {
  return (await relationships(p)).map((r) => `${r.id} ${rowSig(r)}`).sort();
}

/** Reads both lists twice, so both are answered from the cache when the change comes. */
async function warm(...ps: Person[]): Promise<void> {
  for (const p of ps) {
    const first = await api('GET', '/users/@me/relationships', { token: p.token });
    const second = await api('GET', '/users/@me/relationships', { token: p.token });
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
  }
}

const db = socialDatabase();
let nats: NatsConnection;
beforeAll(async () => {
  nats = await connect({ servers: inject('stores').NATS_URL });
});
afterAll(async () => {
  closeSocialGrpc();
  await db.end();
  await nats.close();
});

describe.concurrent('GET /users/@me/relationships after every kind of change', () => {
  it('request, accept, nickname, ignore, unignore, remove: each shows at once on both sides', async () => {
    const [a, b] = await people(2);
    await warm(a, b);

    expectNoContent(await put(a, b));
    expect(await listed(a)).toEqual([`${b.id} 4`]);
    expect(await listed(b)).toEqual([`${a.id} 3 stranger`]);

    await warm(a, b);
    expectNoContent(await put(b, a, { confirm_stranger_request: true }));
    expect(await listed(a)).toEqual([`${b.id} 1`]);
    expect(await listed(b)).toEqual([`${a.id} 1`]);

    await warm(a, b);
    expectNoContent(await api('PATCH', `/users/@me/relationships/${b.id}`, { token: a.token, body: { nickname: 'bestie' } }));
    expect(await listed(a)).toEqual([`${b.id} 1 nick=bestie`]);

    await warm(a);
    expectNoContent(await api('PUT', `/users/@me/relationships/${b.id}/ignore`, { token: a.token }));
    expect(await listed(a)).toEqual([`${b.id} 1 nick=bestie ignored`]);

    await warm(a);
    expectNoContent(await api('DELETE', `/users/@me/relationships/${b.id}/ignore`, { token: a.token }));
    expect(await listed(a)).toEqual([`${b.id} 1 nick=bestie`]);

    await warm(a, b);
    expectNoContent(await api('DELETE', `/users/@me/relationships/${a.id}`, { token: b.token }));
    expect(await listed(a)).toEqual([]);
    expect(await listed(b)).toEqual([]);
  });

  it('a block shows for the blocker and removes the friendship from the other side; unblocking clears it', async () => {
    const [a, b] = await people(2);
    expectNoContent(await put(a, b));
    expectNoContent(await put(b, a, { confirm_stranger_request: true }));
    await warm(a, b);

    expectNoContent(await put(b, a, { type: 2 }));
    expect(await listed(b)).toEqual([`${a.id} 2`]);
    expect(await listed(a)).toEqual([]);

    await warm(a, b);
    expectNoContent(await api('DELETE', `/users/@me/relationships/${a.id}`, { token: b.token }));
    expect(await listed(b)).toEqual([]);
  });

  it('a bulk removal of incoming requests, and a contact-sync bulk add, show on every side', async () => {
    const [a, s1, s2, c] = await people(4);
    expectNoContent(await put(s1, a));
    expectNoContent(await put(s2, a));
    await warm(a, s1, s2);

    expectNoContent(await api('DELETE', '/users/@me/relationships', { token: a.token }));
    expect(await listed(a)).toEqual([]);
    expect(await listed(s1)).toEqual([]);
    expect(await listed(s2)).toEqual([]);

    await warm(a, c);
    const { token } = await socialGrpc().issueContactSyncToken({ userId: a.id, userIds: [c.id] });
    const bulk = await api('POST', '/users/@me/relationships/bulk', { token: a.token, body: { user_ids: [c.id], token } });
    expect(bulk.json).toEqual({ successful_requests: [c.id], failed_requests: [] });
    expect(await listed(a)).toEqual([`${c.id} 4`]);
    expect((await listed(c))[0]).toMatch(new RegExp(`^${a.id} 3`));
  });

  it('rows written straight into the database (as the benchmark seeds them) show too: the version is kept by the database', async () => {
    const [a, b] = await people(2);
    await warm(a, b);
    await db.query(`INSERT INTO relationships (user_id, target_id, type) VALUES ($1, $2, 1), ($2, $1, 1)`, [a.id, b.id]);
    expect(await listed(a)).toEqual([`${b.id} 1`]);
    expect(await listed(b)).toEqual([`${a.id} 1`]);
  });

  it("a friend's rename via PATCH /users/@me reaches the list once auth announces it (USER_UPDATE)", async () => {
    const [a, b] = await people(2);
    expectNoContent(await put(a, b));
    expectNoContent(await put(b, a, { confirm_stranger_request: true }));
    await warm(a);

    const renamed = `r${b.username}`.slice(0, 32);
    const patch = await api('PATCH', '/users/@me', { token: b.token, body: { username: renamed, password: 'correct horse battery' } });
    expect(patch.status).toBe(200);
    // Auth's outbox publishes this envelope for every change of a user. The same one, sent here,
    // keeps this test independent of when that lands; a second copy only drops the entry again.
    nats.publish(
      'events.auth.USER_UPDATE',
      JSON.stringify({
        id: `test-${b.id}-${renamed}`,
        service: 'auth',
        occurred_at: new Date().toISOString(),
        name: 'USER_UPDATE',
        audience: { users: [b.id] },
        data: patch.json,
      }),
    );
    await expect.poll(async () => (await relationships(a)).map((r: Relationship) => r.user.username)).toEqual([renamed]);
  });
});

describe.concurrent('the cached answer', () => {
  it('is JSON with a strong ETag; If-None-Match answers 304 until the list changes', async () => {
    const [a, b] = await people(2);
    const first = await api('GET', '/users/@me/relationships', { token: a.token });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);

    const unchanged = await api('GET', '/users/@me/relationships', { token: a.token, headers: { 'if-none-match': etag! } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.json).toBeUndefined();

    expectNoContent(await put(a, b));
    const changed = await api('GET', '/users/@me/relationships', { token: a.token, headers: { 'if-none-match': etag! } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.json).toEqual([expect.objectContaining({ id: b.id, type: 4 })]);
  });

  it('never answers an older list under concurrent changes and reads', async () => {
    const [a, ...senders] = await people(9);
    await warm(a);
    // Each request, once answered, must be visible to every GET that starts after it.
    await Promise.all(
      senders.map(async (s) => {
        expectNoContent(await put(s, a));
        const ids = (await relationships(a)).map((r) => r.id);
        expect(ids).toContain(s.id);
      }),
    );
    expect((await listed(a)).length).toBe(senders.length);
  });
});
