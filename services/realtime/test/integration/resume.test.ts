import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient, type ServerFrame } from './gateway.client.js';
import { newUser, publishEvent, sleep, startStack, startTestRealtime, stopStack, type RealtimeUnderTest, type Stack } from './harness.js';

let stack: Stack;
let first: RealtimeUnderTest;
let second: RealtimeUnderTest;
/** Sessions here can be resumed for 400 ms only. */
let brief: RealtimeUnderTest;

beforeAll(async () => {
  stack = await startStack();
  first = await startTestRealtime(stack);
  second = await startTestRealtime(stack);
  brief = await startTestRealtime(stack, { RESUME_WINDOW_MS: '400' });
});

afterAll(async () => {
  await stopStack(stack);
});

/** A user identified on `on`, who got `count` events live; the client and the events. */
async function userWithEvents(on: RealtimeUnderTest, count: number) {
  const user = await newUser(stack);
  const { client, ready } = await GatewayClient.ready(on.url, user.token);
  const live = [];
  for (let i = 0; i < count; i++)
    live.push(await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { live: i } }));
  if (count) await client.next((f) => (f.d as { live?: number }).live === count - 1);
  return { user, client, sessionId: ready.session_id };
}

async function resume(url: string, token: string, sessionId: string, seq: number | null) {
  const client = await GatewayClient.connect(url);
  await client.next((f) => f.op === 10);
  client.send(6, { token, session_id: sessionId, seq });
  return client;
}

/** Frames from the first one after Hello up to RESUMED (or op 9), as received. */
async function untilResumed(client: GatewayClient): Promise<ServerFrame[]> {
  await client.next((f) => f.t === 'RESUMED' || f.op === 9);
  return client.frames.filter((f) => f.op !== 10 && f.op !== 11);
}

describe('Resume', () => {
  it('when a dropped socket resumes on the same replica, then it gets exactly the events it missed, then RESUMED', async () => {
    const { user, client, sessionId } = await userWithEvents(first, 2);
    client.drop();
    await sleep(50);
    const missed = [];
    for (let i = 0; i < 3; i++)
      missed.push((await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { missed: i } })).envelope);

    const back = await resume(first.url, user.token, sessionId, 3);
    expect(await untilResumed(back)).toEqual([
      ...missed.map((e, i) => ({ op: 0, t: 'RELATIONSHIP_ADD', s: 4 + i, d: e.data })),
      { op: 0, t: 'RESUMED', s: null, d: {} },
    ]);

    // Live again, numbering on.
    await publishEvent(stack, { name: 'RELATIONSHIP_REMOVE', users: [user.userId], data: { after: true } });
    expect(await back.next((f) => f.t === 'RELATIONSHIP_REMOVE')).toMatchObject({ s: 7, d: { after: true } });
    back.close();
  });

  it('when the session resumes on another replica, then that replica replays what was missed from the stream, with no duplicates', async () => {
    const { user, client, sessionId } = await userWithEvents(first, 1);
    client.drop();
    await sleep(50);
    const missed = [];
    for (let i = 0; i < 4; i++)
      missed.push((await publishEvent(stack, { name: 'INVITE_CREATE', users: [user.userId], data: { missed: i } })).envelope);
    const noise = await newUser(stack);
    await publishEvent(stack, { name: 'INVITE_CREATE', users: [noise.userId] });

    const back = await resume(second.url, user.token, sessionId, 2);
    expect(await untilResumed(back)).toEqual([
      ...missed.map((e, i) => ({ op: 0, t: 'INVITE_CREATE', s: 3 + i, d: e.data })),
      { op: 0, t: 'RESUMED', s: null, d: {} },
    ]);
    await publishEvent(stack, { name: 'INVITE_DELETE', users: [user.userId] });
    await back.next((f) => f.t === 'INVITE_DELETE');
    expect(back.dispatches().map((f) => f.s)).toEqual([3, 4, 5, 6, null, 7]);
    back.close();
  });

  it('when the client lost the tail of what was sent, then the kept frames are sent again from its seq on', async () => {
    const { user, client, sessionId } = await userWithEvents(first, 3);
    const sent = client.dispatches();
    client.drop();
    // The client says it saw only up to s 2 (READY and the first event).
    const back = await resume(second.url, user.token, sessionId, 2);
    expect(await untilResumed(back)).toEqual([...sent.slice(1), { op: 0, t: 'RESUMED', s: null, d: {} }]);
    back.close();
  });

  it('when events keep coming while the session resumes, then each arrives once, in order', async () => {
    const { user, client, sessionId } = await userWithEvents(first, 0);
    client.drop();
    const publishing = (async () => {
      for (let i = 0; i < 30; i++) await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { i } });
    })();
    await sleep(5);
    const back = await resume(second.url, user.token, sessionId, 1);
    await publishing;
    await back.next((f) => (f.d as { i?: number }).i === 29);
    const events = back.dispatches().filter((f) => f.t === 'RELATIONSHIP_ADD');
    expect(events.map((f) => (f.d as { i: number }).i)).toEqual([...Array(30).keys()]);
    expect(events.map((f) => f.s)).toEqual([...Array(30).keys()].map((i) => i + 2));
    back.close();
  });

  it('when the old socket is still open on the replica where the session resumes, then the old one is closed', async () => {
    const { user, client, sessionId } = await userWithEvents(first, 1);
    const back = await resume(first.url, user.token, sessionId, 2);
    await untilResumed(back);
    expect((await client.closed).code).toBe(1000);
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { after: true } });
    expect(await back.next((f) => f.t === 'RELATIONSHIP_ADD')).toMatchObject({ s: 3 });
    back.close();
  });

  it('when the old socket is still open on another replica, then its next event closes it and the resumed one gets it', async () => {
    const { user, client, sessionId } = await userWithEvents(first, 1);
    const back = await resume(second.url, user.token, sessionId, 2);
    await untilResumed(back);
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { after: true } });
    expect(await back.next((f) => f.t === 'RELATIONSHIP_ADD')).toMatchObject({ s: 3, d: { after: true } });
    expect((await client.closed).code).toBe(1000);
    expect(client.dispatches()).toHaveLength(1);
    back.close();
  });
});

describe('how a client closes', () => {
  it('when a client closes with 1000 or 1001, then its session is over: a resume gets op 9', async () => {
    for (const code of [1000, 1001]) {
      const user = await newUser(stack);
      const { client, ready } = await GatewayClient.ready(first.url, user.token);
      client.ws.close(code);
      await client.closed;
      const back = await GatewayClient.connect(second.url);
      back.send(6, { token: user.token, session_id: ready.session_id, seq: 1 });
      expect(await back.next((f) => f.op === 9)).toMatchObject({ op: 9, d: false });
      back.close();
    }
  });

  it('when a client closes with another code (as a client about to resume does), then the session resumes', async () => {
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(first.url, user.token);
    client.ws.close(4200);
    await client.closed;
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { missed: true } });
    const back = await GatewayClient.connect(second.url);
    back.send(6, { token: user.token, session_id: ready.session_id, seq: 1 });
    await back.next((f) => f.t === 'RESUMED');
    expect(back.dispatches().map((f) => [f.t, f.s])).toEqual([
      ['RELATIONSHIP_ADD', 2],
      ['RESUMED', null],
    ]);
    back.close();
  });
});

describe('Resume refused', () => {
  it('when the session id is unknown, then op 9 Invalid Session (false) and the connection may identify', async () => {
    const user = await newUser(stack);
    const client = await resume(first.url, user.token, 'f'.repeat(32), 1);
    expect(await client.next((f) => f.op === 9)).toEqual({ op: 9, d: false, s: null, t: null });
    client.send(2, { token: user.token, properties: {} });
    expect(await client.next((f) => f.t === 'READY')).toMatchObject({ s: 1 });
    client.close();
  });

  it('when the resume window has passed, then op 9', async () => {
    const { user, client, sessionId } = await userWithEvents(brief, 1);
    client.drop();
    await sleep(700);
    const back = await resume(brief.url, user.token, sessionId, 2);
    expect(await back.next((f) => f.op === 9)).toMatchObject({ d: false });
    back.close();
  });

  it('when seq is beyond what was sent, then op 9', async () => {
    const { user, client, sessionId } = await userWithEvents(first, 1);
    client.drop();
    const back = await resume(first.url, user.token, sessionId, 5);
    expect(await back.next((f) => f.op === 9)).toMatchObject({ d: false });
    back.close();
  });

  it('when the token belongs to another user, then op 9', async () => {
    const { client, sessionId } = await userWithEvents(first, 0);
    client.drop();
    const intruder = await newUser(stack);
    const back = await resume(first.url, intruder.token, sessionId, 1);
    expect(await back.next((f) => f.op === 9)).toMatchObject({ d: false });
    back.close();
  });

  it('when the token is not valid, then 4004', async () => {
    const { client, sessionId } = await userWithEvents(first, 0);
    client.drop();
    const back = await resume(first.url, 'nope', sessionId, 1);
    expect((await back.closed).code).toBe(4004);
  });

  it('when an identified client sends Resume, then 4005', async () => {
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(first.url, user.token);
    client.send(6, { token: user.token, session_id: ready.session_id, seq: 1 });
    expect((await client.closed).code).toBe(4005);
  });
});
