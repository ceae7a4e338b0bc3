import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_STREAM, createLogger } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { EventConsumer } from '../../src/events/event.consumer.js';
import { publishEvent, startStack, stopStack, type Stack } from './harness.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stopStack(stack);
});

describe('EventConsumer', () => {
  it('when messages the server delivered never reach the consumer, then it reads them from the stream and handles every event once, in order', async () => {
    const durableName = unique('gap');
    const jsm = await stack.nats.jetstreamManager();
    const consumer = await EventConsumer.create(
      stack.nats,
      jsm,
      { durableName, inactiveThresholdMs: 60_000, ackDelayMs: 50 },
      createLogger('test', 'silent'),
    );
    const tag = unique('u');
    const mine = (data: unknown) => (data as { tag?: string; i: number }).tag === tag;
    const published = [];
    for (let i = 0; i < 3; i++) published.push(await publishEvent(stack, { name: 'GAP_TEST', users: [tag], data: { tag, i } }));

    // Another client takes messages from the same durable consumer, up to event 1, and never
    // acknowledges them: to the consumer they are delivered and lost, as with a dropped connection.
    const thief = await stack.js.consumers.get(EVENTS_STREAM, durableName);
    for (;;) {
      const m = await thief.next({ expires: 2000 });
      if (!m) throw new Error('the stolen messages did not come');
      const data = (m.json() as { data: unknown }).data;
      if (mine(data) && (data as { i: number }).i === 1) break;
    }

    const handled: [number, number][] = [];
    await consumer.start(async (events) => {
      for (const { event, streamSeq } of events) if (mine(event.data)) handled.push([(event.data as { i: number }).i, streamSeq]);
    });
    await expect.poll(() => handled.length).toBe(3);
    expect(handled).toEqual(published.map(({ seq }, i) => [i, seq]));
    // One ack covers them all.
    await expect
      .poll(async () => (await jsm.consumers.info(EVENTS_STREAM, durableName)).ack_floor.stream_seq)
      .toBeGreaterThanOrEqual(published[2]!.seq);
    await consumer.stop();
    await jsm.consumers.delete(EVENTS_STREAM, durableName);
  });
});
