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
  it('when a session is revoked, then its socket closes with 4004, cannot resume, and the user’s other sockets get the dispatch', async () => {
    const alice = await newUser(stack);
    const second = await newSession(stack, alice);
    const revoked = await GatewayClient.ready(realtime.url, alice.token);
    const kept = (await GatewayClient.ready(other.url, second.token)).client;
    const keptHere = (await GatewayClient.ready(realtime.url, second.token)).client;

    const authSessionId = await authSessionIdOf(stack, alice.token);
    const data = { auth_session_id_hash: revoked.ready.auth_session_id_hash };
    await publishEvent(stack, {
      name: 'AUTH_SESSION_CHANGE',
      users: [alice.userId],
      data,
      internal: { revoked_session_ids: [authSessionId] },
    });

    expect(await revoked.client.closed).toEqual({ code: 4004, reason: 'Authentication failed.' });
    expect(revoked.client.dispatches()).toEqual([]);
    for (const c of [kept, keptHere]) {
      expect(await c.next((f) => f.t === 'AUTH_SESSION_CHANGE')).toEqual({ op: 0, t: 'AUTH_SESSION_CHANGE', s: 2, d: data });
    }

    // Even with a token that is still good, the ended session is gone.
    const again = await GatewayClient.connect(other.url);
    again.send(6, { token: second.token, session_id: revoked.ready.session_id, seq: 1 });
    expect(await again.next((f) => f.op === 9)).toMatchObject({ op: 9, d: false });
    for (const c of [kept, keptHere, again]) c.close();
  });

  it('when a user logs one session out through the API, then that session’s socket closes with 4004 and the other socket gets AUTH_SESSION_CHANGE', async () => {
    const alice = await newUser(stack);
    const second = await newSession(stack, alice);
    const leaving = await GatewayClient.ready(realtime.url, alice.token);
    const staying = (await GatewayClient.ready(other.url, second.token)).client;

    const res = await fetch(`${stack.gateway.base}/api/v9/auth/sessions/logout`, {
      method: 'POST',
      headers: { authorization: second.token, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id_hashes: [leaving.ready.auth_session_id_hash] }),
    });
    expect(res.status).toBe(204);

    expect((await leaving.client.closed).code).toBe(4004);
    expect(await staying.next((f) => f.t === 'AUTH_SESSION_CHANGE', 10_000)).toEqual({
      op: 0,
      t: 'AUTH_SESSION_CHANGE',
      s: 2,
      d: { auth_session_id_hash: leaving.ready.auth_session_id_hash },
    });
    staying.close();
  });
});
