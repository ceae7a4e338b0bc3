import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nanos } from 'nats';
import { EVENTS_STREAM } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { GatewayClient } from './gateway.client.js';
import { newUser, publishEvent, sleep, spawnRealtimeProcess, startStack, startTestRealtime, stopStack, type Stack } from './harness.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stopStack(stack);
});

const numbered = (frames: { t: string | null; s: number | null; d: unknown }[]) =>
  frames.filter((f) => f.t === 'RELATIONSHIP_ADD').map((f) => [(f.d as { i: number }).i, f.s]);

describe('events published in a burst', () => {
  it('when many events for one user arrive together, then the socket gets each once, in order, and a resume elsewhere replays them all from the store', async () => {
    const first = await startTestRealtime(stack);
    const second = await startTestRealtime(stack);
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(first.url, user.token);
    // Not awaited one by one: they reach the stream (and the consumer) back to back.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { i } })),
    );
    await client.next((f) => f.s === 41);
    const expected = Array.from({ length: 40 }, (_, i) => i + 2);
    expect(numbered(client.frames).map(([, s]) => s)).toEqual(expected);
    const sent = numbered(client.frames);
    client.drop();

    const back = await GatewayClient.connect(second.url);
    back.send(6, { token: user.token, session_id: ready.session_id, seq: 1 });
    await back.next((f) => f.t === 'RESUMED');
    expect(numbered(back.frames)).toEqual(sent);
    back.close();
  });
});

describe('a replica killed before it acknowledged what it delivered', () => {
  let child: ChildProcess | undefined;
  let consumerName: string | undefined;

  afterAll(async () => {
    child?.kill('SIGKILL');
    if (consumerName) await (await stack.nats.jetstreamManager()).consumers.delete(EVENTS_STREAM, consumerName).catch(() => undefined);
  });

  it('when it comes back under the same id, then the events are delivered to it again and its resumed client gets none of them twice', async () => {
    const replicaId = unique('rt');
    consumerName = `realtime_${replicaId}`;
    const spawned = await spawnRealtimeProcess(stack, replicaId, {
      // Nothing is acknowledged before the kill.
      EVENTS_ACK_DELAY_MS: '600000',
    });
    child = spawned.child;
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(spawned.url, user.token);
    const published: Awaited<ReturnType<typeof publishEvent>>[] = [];
    for (let i = 0; i < 5; i++) published.push(await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { i } }));
    await client.next((f) => f.s === 6);
    child.kill('SIGKILL');
    await client.closed;

    const jsm = await stack.nats.jetstreamManager();
    const atKill = await jsm.consumers.info(EVENTS_STREAM, consumerName);
    expect(atKill.ack_floor.stream_seq).toBeLessThan(published[0]!.seq);
    // NATS redelivers what was not acknowledged once the ack wait is over: shortened here, so it
    // happens within the test.
    await jsm.consumers.update(EVENTS_STREAM, consumerName, { ack_wait: nanos(500) });

    const restarted = await startTestRealtime(stack, { REPLICA_ID: replicaId });
    const back = await GatewayClient.connect(restarted.url);
    back.send(6, { token: user.token, session_id: ready.session_id, seq: 6 });
    await back.next((f) => f.t === 'RESUMED');
    // The restarted replica is given the five events again, handles and acknowledges them.
    await expect
      .poll(
        async () => {
          const info = await jsm.consumers.info(EVENTS_STREAM, consumerName!);
          return info.ack_floor.stream_seq >= published.at(-1)!.seq && info.delivered.consumer_seq >= atKill.delivered.consumer_seq + 5;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    await publishEvent(stack, { name: 'RELATIONSHIP_ADD', users: [user.userId], data: { i: 5 } });
    await back.next((f) => f.s === 7);
    await sleep(200);
    expect(numbered([...client.frames, ...back.frames])).toEqual([0, 1, 2, 3, 4, 5].map((i) => [i, i + 2]));
    back.close();
  }, 60_000);
});
