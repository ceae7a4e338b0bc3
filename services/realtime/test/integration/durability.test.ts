import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_STREAM } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { GatewayClient } from './gateway.client.js';
import { newUser, publishEvent, startStack, startTestRealtime, stopStack, type Stack } from './harness.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stopStack(stack);
});

describe('a replica that stops and starts again', () => {
  it('when it shuts down, then its clients get op 7 Reconnect, and the session resumes on the replica started again under the same id', async () => {
    const replicaId = unique('rt');
    const before = await startTestRealtime(stack, { REPLICA_ID: replicaId });
    const jsm = await stack.nats.jetstreamManager();
    const consumerBefore = await jsm.consumers.info(EVENTS_STREAM, before.consumerName);

    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(before.url, user.token);
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { live: true } });
    await client.next((f) => f.t === 'RELATIONSHIP_ADD');

    const stopping = before.stop();
    expect(await client.next((f) => f.op === 7)).toEqual({ op: 7, d: null, s: null, t: null });
    // A client that does not leave on its own is closed with a code that lets it resume.
    expect((await client.closed).code).toBe(4000);
    await stopping;

    const missed = [];
    for (let i = 0; i < 3; i++) missed.push(await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { i } }));
    const stoppedAt = (await jsm.consumers.info(EVENTS_STREAM, before.consumerName)).ack_floor.stream_seq;
    expect(stoppedAt).toBeLessThan(missed[0]!.seq);

    const after = await startTestRealtime(stack, { REPLICA_ID: replicaId });
    // The same durable consumer, which takes up the events published while the replica was down.
    const consumerAfter = await jsm.consumers.info(EVENTS_STREAM, after.consumerName);
    expect(consumerAfter.created).toBe(consumerBefore.created);
    await expect
      .poll(async () => (await jsm.consumers.info(EVENTS_STREAM, after.consumerName)).ack_floor.stream_seq)
      .toBeGreaterThanOrEqual(missed.at(-1)!.seq);

    const back = await GatewayClient.connect(after.url);
    back.send(6, { token: user.token, session_id: ready.session_id, seq: 2 });
    await back.next((f) => f.t === 'RESUMED');
    expect(back.dispatches()).toEqual([
      ...missed.map(({ envelope }, i) => ({ op: 0, t: 'RELATIONSHIP_ADD', s: 3 + i, d: envelope.data })),
      { op: 0, t: 'RESUMED', s: null, d: {} },
    ]);
    back.close();
  });
});

describe('a replica whose consumer is deleted under it', () => {
  it('when the consumer is deleted, then the replica sets it up again from where it was and its sockets miss nothing', async () => {
    const realtime = await startTestRealtime(stack);
    const user = await newUser(stack);
    const { client } = await GatewayClient.ready(realtime.url, user.token);
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { i: 0 } });
    await client.next((f) => f.t === 'RELATIONSHIP_ADD');

    const jsm = await stack.nats.jetstreamManager();
    await jsm.consumers.delete(EVENTS_STREAM, realtime.consumerName);
    for (let i = 1; i < 4; i++) await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { i } });

    await client.next((f) => (f.d as { i?: number }).i === 3, 20_000);
    expect(client.dispatches().map((f) => [(f.d as { i: number }).i, f.s])).toEqual([
      [0, 2],
      [1, 3],
      [2, 4],
      [3, 5],
    ]);
    client.close();
  }, 30_000);
});
