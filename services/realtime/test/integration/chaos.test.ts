import type { ChildProcess } from 'node:child_process';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_STREAM } from '@kith/platform';
import { TestNatsServer, unique } from '@kith/platform/testing';
import { GatewayClient, type ServerFrame } from './gateway.client.js';
import { newUser, publishEvent, sleep, spawnRealtimeProcess, startStack, startTestRealtime, stopStack, type Stack } from './harness.js';

const EVENTS = 60;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stopStack(stack);
});

/** Publishes event `i` until the stream has taken it; the same id makes a retried copy a no-op. */
async function publishSurely(target: Stack, userId: string, i: number): Promise<void> {
  const id = `chaos-${userId}-${i}`;
  for (;;) {
    try {
      await publishEvent(target, { name: 'RELATIONSHIP_ADD', users: [userId], data: { i }, id });
      return;
    } catch {
      await sleep(100);
    }
  }
}

/** The `i` of every RELATIONSHIP_ADD received, in order, and their sequence numbers. */
function received(frames: ServerFrame[]) {
  const events = frames.filter((f) => f.t === 'RELATIONSHIP_ADD');
  return { order: events.map((f) => (f.d as { i: number }).i), seqs: events.map((f) => f.s) };
}

const allInOrder = [...Array(EVENTS).keys()];

describe('chaos', () => {
  let nats: TestNatsServer;
  let publisher: NatsConnection;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    publisher = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  });

  afterAll(async () => {
    await publisher?.close();
    await nats?.stop();
  });

  it('when NATS is killed and brought back while events are published, then the socket gets every event exactly once, in order', async () => {
    const realtime = await startTestRealtime(stack, { NATS_URL: nats.url });
    const target = { ...stack, js: publisher.jetstream() };
    const user = await newUser(stack);
    const { client } = await GatewayClient.ready(realtime.url, user.token);

    for (let i = 0; i < EVENTS; i++) {
      if (i === EVENTS / 2) {
        await nats.kill();
        await sleep(500);
        await nats.restart();
      }
      await publishSurely(target, user.userId, i);
    }
    await client.next((f) => (f.d as { i?: number }).i === EVENTS - 1, 20_000);
    await sleep(200);
    const { order, seqs } = received(client.frames);
    expect(order).toEqual(allInOrder);
    expect(seqs).toEqual(allInOrder.map((i) => i + 2));
    client.close();
    await realtime.stop();
  }, 60_000);
});

describe('a realtime process killed mid-stream', () => {
  let child: ChildProcess | undefined;

  let killedConsumer: string | undefined;

  afterAll(async () => {
    child?.kill('SIGKILL');
    // The killed replica's consumer is its own; a replica that never comes back is not kept.
    if (killedConsumer) await (await stack.nats.jetstreamManager()).consumers.delete(EVENTS_STREAM, killedConsumer).catch(() => undefined);
  });

  it('when its client resumes on another replica, then every event arrives exactly once, in order, across both sockets', async () => {
    const replicaId = unique('rt');
    killedConsumer = `realtime_${replicaId}`;
    const spawned = await spawnRealtimeProcess(stack, replicaId);
    child = spawned.child;
    const survivor = await startTestRealtime(stack);
    const user = await newUser(stack);
    const { client, ready } = await GatewayClient.ready(spawned.url, user.token);

    let resumed: GatewayClient | undefined;
    for (let i = 0; i < EVENTS; i++) {
      if (i === EVENTS / 2) {
        child.kill('SIGKILL');
        await client.closed;
        // Resume from the last frame this client saw, as a client does.
        const lastSeen = client.frames.filter((f) => f.s !== null).at(-1)!.s;
        resumed = await GatewayClient.connect(survivor.url);
        resumed.send(6, { token: user.token, session_id: ready.session_id, seq: lastSeen });
        await resumed.next((f) => f.t === 'RESUMED');
      }
      await publishSurely(stack, user.userId, i);
    }
    await resumed!.next((f) => (f.d as { i?: number }).i === EVENTS - 1, 20_000);
    await sleep(200);
    const { order, seqs } = received([...client.frames, ...resumed!.frames]);
    expect(order).toEqual(allInOrder);
    expect(seqs).toEqual(allInOrder.map((i) => i + 2));
    resumed!.close();
  }, 60_000);
});
