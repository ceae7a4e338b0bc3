import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from './gateway.client.js';
import {
  authSessionIdOf,
  newSession,
  newUser,
  publishEvent,
  startStack,
  startTestRealtime,
  stopStack,
  type RealtimeUnderTest,
  type Stack,
} from './harness.js';

let stack: Stack;
let realtime: RealtimeUnderTest;
/** A second replica: every replica consumes every event and delivers to its own sockets. */
let other: RealtimeUnderTest;

beforeAll(async () => {
  stack = await startStack();
  realtime = await startTestRealtime(stack);
  other = await startTestRealtime(stack);
});

afterAll(async () => {
  await stopStack(stack);
});

describe('events from the stream', () => {
  it('when events name a user, then each of their sockets (on any replica) gets them in order with increasing s, and no one else does', async () => {
    const alice = await newUser(stack);
    const bob = await newUser(stack);
    const a1 = (await GatewayClient.ready(realtime.url, alice.token)).client;
    const a2 = (await GatewayClient.ready(other.url, (await newSession(stack, alice)).token)).client;
    const b = (await GatewayClient.ready(realtime.url, bob.token)).client;

    const sent = [];
    for (let i = 0; i < 5; i++)
      sent.push((await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [alice.userId], data: { i } })).envelope);
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [bob.userId], data: { for: 'bob' } });

    for (const client of [a1, a2]) {
      await client.next((f) => (f.d as { i?: number }).i === 4);
      expect(client.dispatches()).toEqual(sent.map((e, i) => ({ op: 0, t: 'RELATIONSHIP_ADD', s: i + 2, d: e.data })));
    }
    expect((await b.next((f) => f.op === 0 && f.t !== 'READY')).d).toEqual({ for: 'bob' });
    expect(b.dispatches()).toHaveLength(1);
    for (const c of [a1, a2, b]) c.close();
  });

  it('when an event names several users and one twice, then each socket gets it exactly once', async () => {
    const alice = await newUser(stack);
    const bob = await newUser(stack);
    const a = (await GatewayClient.ready(realtime.url, alice.token)).client;
    const b = (await GatewayClient.ready(realtime.url, bob.token)).client;
    await publishEvent(stack, { name: 'INVITE_CREATE', users: [alice.userId, bob.userId, alice.userId], data: { code: 'x' } });
    await publishEvent(stack, { name: 'INVITE_DELETE', users: [alice.userId, bob.userId], data: { code: 'x' } });
    for (const c of [a, b]) {
      await c.next((f) => f.t === 'INVITE_DELETE');
      expect(c.dispatches().map((f) => [f.t, f.s])).toEqual([
        ['INVITE_CREATE', 2],
        ['INVITE_DELETE', 3],
      ]);
      c.close();
    }
  });

  it('when an event carries internal facts, then the dispatch has only its data', async () => {
    const alice = await newUser(stack);
    const a = (await GatewayClient.ready(realtime.url, alice.token)).client;
    await publishEvent(stack, {
      name: 'USER_UPDATE',
      users: [alice.userId],
      data: { id: alice.userId },
      internal: { revoked_session_ids: ['nobody'] },
    });
    const frame = await a.next((f) => f.t === 'USER_UPDATE');
    expect(frame).toEqual({ op: 0, t: 'USER_UPDATE', s: 2, d: { id: alice.userId } });
    expect(JSON.stringify(a.frames)).not.toContain('revoked_session_ids');
    a.close();
  });

  it('when the same event is published twice with its id, then it is dispatched once', async () => {
    const alice = await newUser(stack);
    const a = (await GatewayClient.ready(realtime.url, alice.token)).client;
    const { envelope } = await publishEvent(stack, { name: 'RELATIONSHIP_REMOVE', users: [alice.userId] });
    await publishEvent(stack, { name: 'RELATIONSHIP_REMOVE', users: [alice.userId], id: envelope.id, data: envelope.data });
    await publishEvent(stack, { name: 'RELATIONSHIP_UPDATE', users: [alice.userId] });
    await a.next((f) => f.t === 'RELATIONSHIP_UPDATE');
    expect(a.dispatches().map((f) => f.t)).toEqual(['RELATIONSHIP_REMOVE', 'RELATIONSHIP_UPDATE']);
    a.close();
  });

  it('when a message on the stream is not an envelope, then it is skipped and later events still arrive', async () => {
    const alice = await newUser(stack);
    const a = (await GatewayClient.ready(realtime.url, alice.token)).client;
    await stack.js.publish('events.test.GARBAGE', 'not json');
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [alice.userId] });
    expect(await a.next((f) => f.t === 'RELATIONSHIP_ADD')).toMatchObject({ s: 2 });
    a.close();
  });
});

describe('AUTH_SESSION_CHANGE', () => {
  const api = async (path: string, token: string, method: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.gateway.base}/api/v9${path}`, {
      method,
      headers: { authorization: token, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (res.status === 204 ? {} : await res.json()) as Record<string, unknown> };
  };

  /** A probe event for the user: the next dispatch a socket that was told nothing gets. */
  const probe = (userId: string) => publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [userId], data: { probe: true } });

  it('when a session is revoked, then its sockets close with 4004 and cannot resume, and the user’s other sockets are told nothing', async () => {
    const alice = await newUser(stack);
    const second = await newSession(stack, alice);
    const revoked = await GatewayClient.ready(realtime.url, alice.token);
    const kept = (await GatewayClient.ready(other.url, second.token)).client;
    const keptHere = (await GatewayClient.ready(realtime.url, second.token)).client;

    const authSessionId = await authSessionIdOf(stack, alice.token);
    await publishEvent(stack, {
      name: 'AUTH_SESSION_CHANGE',
      users: [alice.userId],
      data: { auth_session_id_hash: revoked.ready.auth_session_id_hash },
      internal: { revoked_session_ids: [authSessionId] },
    });

    expect(await revoked.client.closed).toEqual({ code: 4004, reason: 'Authentication failed.' });
    expect(revoked.client.dispatches()).toEqual([]);
    await probe(alice.userId);
    for (const c of [kept, keptHere]) {
      expect(await c.next((f) => f.op === 0 && f.t !== 'READY')).toMatchObject({ t: 'RELATIONSHIP_ADD', s: 2, d: { probe: true } });
    }

    // Even with a token that is still good, the ended session is gone.
    const again = await GatewayClient.connect(other.url);
    again.send(6, { token: second.token, session_id: revoked.ready.session_id, seq: 1 });
    expect(await again.next((f) => f.op === 9)).toMatchObject({ op: 9, d: false });
    for (const c of [kept, keptHere, again]) c.close();
  });

  it('when a user logs another session out through the API, then that session’s socket closes with 4004 and the caller’s socket is told nothing', async () => {
    const alice = await newUser(stack);
    const second = await newSession(stack, alice);
    const leaving = await GatewayClient.ready(realtime.url, alice.token);
    const staying = (await GatewayClient.ready(other.url, second.token)).client;

    const res = await api('/auth/sessions/logout', second.token, 'POST', { session_id_hashes: [leaving.ready.auth_session_id_hash] });
    expect(res.status).toBe(204);

    expect((await leaving.client.closed).code).toBe(4004);
    await probe(alice.userId);
    expect(await staying.next((f) => f.op === 0 && f.t !== 'READY', 10_000)).toMatchObject({ t: 'RELATIONSHIP_ADD', s: 2 });
    staying.close();
  });

  it('when a user changes their password, then the changing session’s sockets stay open and are told the new session, and the other sessions’ sockets close', async () => {
    const alice = await newUser(stack);
    const second = await newSession(stack, alice);
    const changing = (await GatewayClient.ready(realtime.url, alice.token)).client;
    const changingElsewhere = (await GatewayClient.ready(other.url, alice.token)).client;
    const ended = (await GatewayClient.ready(other.url, second.token)).client;

    const change = { password: alice.password, new_password: `new-${alice.password}` };
    const required = await api('/users/@me', alice.token, 'PATCH', change);
    expect(required.body.code).toBe(60003);
    const { ticket } = required.body.mfa as { ticket: string };
    const finish = await api('/mfa/finish', alice.token, 'POST', { ticket, mfa_type: 'password', data: alice.password });
    expect(finish.status).toBe(200);
    const done = await api('/users/@me', alice.token, 'PATCH', change, { 'x-discord-mfa-authorization': finish.body.token as string });
    expect(done.status).toBe(200);
    const newToken = done.body.token as string;

    const sessions = await api('/auth/sessions', newToken, 'GET');
    const [current] = sessions.body.user_sessions as { id_hash: string }[];
    expect(sessions.body.user_sessions).toHaveLength(1);
    for (const c of [changing, changingElsewhere]) {
      expect(await c.next((f) => f.t === 'AUTH_SESSION_CHANGE', 10_000)).toMatchObject({
        op: 0,
        s: expect.any(Number),
        d: { auth_session_id_hash: current!.id_hash },
      });
      expect(c.dispatches().filter((f) => f.t === 'AUTH_SESSION_CHANGE')).toHaveLength(1);
    }
    expect((await ended.closed).code).toBe(4004);

    // The sockets now stand for the new session: its logout closes them.
    expect((await api('/auth/logout', newToken, 'POST', {})).status).toBe(204);
    for (const c of [changing, changingElsewhere]) expect((await c.closed).code).toBe(4004);
  });
});
