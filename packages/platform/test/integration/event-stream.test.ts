import { StorageType, nanos } from 'nats';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ensureEventStream } from '../../src/event-stream.js';
import { EVENTS_STREAM } from '../../src/events.js';
import { connectNats, type NatsConnection } from '../../src/stores.js';
import { TestNatsServer } from '../../src/testing/index.js';

/** A server of this test's own: these tests create, change and compare the EVENTS stream itself. */
async function privateNats(): Promise<NatsConnection[]> {
  const server = await TestNatsServer.start();
  onTestFinished(() => server.stop());
  return Promise.all(
    Array.from({ length: 5 }, async (_, i) => {
      const nc = await connectNats(server.url, `stream-test-${i}`);
      onTestFinished(() => nc.close());
      return nc;
    }),
  );
}

async function streamNames(nc: NatsConnection): Promise<string[]> {
  const jsm = await nc.jetstreamManager();
  const names: string[] = [];
  for await (const name of jsm.streams.names()) names.push(name);
  return names;
}

describe('ensureEventStream', () => {
  it('when 5 processes ensure it at once on a fresh server, then all succeed and one stream has the configuration', async () => {
    const connections = await privateNats();
    const results = await Promise.allSettled(connections.map((nc) => ensureEventStream(nc)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);

    expect(await streamNames(connections[0]!)).toEqual([EVENTS_STREAM]);
    const { config } = await (await connections[0]!.jetstreamManager()).streams.info(EVENTS_STREAM);
    expect(config).toMatchObject({
      subjects: ['events.>'],
      storage: StorageType.File,
      duplicate_window: nanos(120_000),
      max_age: nanos(24 * 3_600_000),
    });
  });

  it('when the stream exists with another configuration, then it is updated, by several processes at once', async () => {
    const connections = await privateNats();
    const jsm = await connections[0]!.jetstreamManager();
    await jsm.streams.add({ name: EVENTS_STREAM, subjects: ['events.>'], storage: StorageType.File, max_age: nanos(60_000) });

    const results = await Promise.allSettled(connections.map((nc) => ensureEventStream(nc, { maxAgeMs: 3_600_000 })));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const { config } = await jsm.streams.info(EVENTS_STREAM);
    expect(config).toMatchObject({ max_age: nanos(3_600_000), duplicate_window: nanos(120_000) });
  });

  it('when another stream already holds the events subjects, then it refuses with the overlap error and creates nothing', async () => {
    const [nc] = await privateNats();
    const jsm = await nc!.jetstreamManager();
    await jsm.streams.add({ name: 'SOMEONE_ELSES', subjects: ['events.>'], storage: StorageType.Memory });

    await expect(ensureEventStream(nc!)).rejects.toMatchObject({ api_error: { err_code: 10065 } });
    expect(await streamNames(nc!)).toEqual(['SOMEONE_ELSES']);
  });

  it('when called again with the same configuration, then it changes nothing and keeps the messages', async () => {
    const [nc] = await privateNats();
    await ensureEventStream(nc!);
    await nc!.jetstream().publish('events.test.KEPT', '{}');
    const again = await ensureEventStream(nc!);
    expect(again.state.messages).toBe(1);
  });
});
