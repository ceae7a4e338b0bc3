import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { EVENTS_STREAM, eventSubject } from '../../src/events.js';
import type { OutboxRelay } from '../../src/outbox.relay.js';
import { SnowflakeGenerator } from '../../src/snowflake.js';
import { connectNats, type NatsConnection } from '../../src/stores.js';
import { TestNatsServer, unique } from '../../src/testing/index.js';
import { outboxDatabase, produceOne, startRelay, storedIds, terminateConnections, waitUntilSent } from './outbox.harness.js';

const EVENTS = 1_000;
/** Events produced at which each blow lands: about 1 s, 2.5 s and 3.5 s into the run. */
const KILL_NATS_AT = 200;
const RESTART_NATS_AT = 500;
const CRASH_RELAY_AT = 700;

/** A relay process of its own: own pool (named, so its connections can be ended) and NATS connection. */
async function relayProcess(database: Awaited<ReturnType<typeof outboxDatabase>>, natsUrl: string) {
  const name = unique('relay_');
  const nc = await connectNats(natsUrl, name);
  onTestFinished(() => nc.close());
  const relay = startRelay({ db: database.open(name), databaseUrl: database.url, nats: nc, batchSize: 50 });
  return {
    relay,
    /** As abrupt as a process dying: its NATS connection and its database sessions end under it. */
    async crash() {
      const stopped = relay.stop();
      await Promise.all([nc.close(), terminateConnections(name)]);
      await stopped;
    },
  };
}

describe('outbox chaos', () => {
  it('when NATS is killed and restarted and a relay crashes mid-stream, then the stream holds every event exactly once, in order', async () => {
    const server = await TestNatsServer.start();
    onTestFinished(() => server.stop());
    const database = await outboxDatabase();
    const service = unique('chaos');
    const ids = new SnowflakeGenerator();
    const relays: OutboxRelay<unknown>[] = [];

    const first = await relayProcess(database, server.url);
    relays.push(first.relay);
    const produced: string[] = [];
    let restarted: Promise<void> | undefined;
    for (let n = 0; n < EVENTS; n++) {
      produced.push(await produceOne(database.db, service, n, ids));
      if (n === KILL_NATS_AT) await server.kill();
      // Not awaited: events keep coming while the server recovers its store.
      if (n === RESTART_NATS_AT) restarted = server.restart();
      if (n === CRASH_RELAY_AT) {
        await first.crash();
        relays.push((await relayProcess(database, server.url)).relay);
      }
      await sleep(3);
    }
    await restarted;

    await waitUntilSent(database.db, 40_000);
    const nc = await connectNats(server.url, 'chaos-check');
    onTestFinished(() => nc.close());
    const stored = await storedIds(nc, eventSubject(service, 'THING_HAPPENED'));
    expect(duplicatesIn(stored)).toEqual([]);
    expect(stored.length).toBe(EVENTS);
    expect(stored).toEqual(produced);
    expect(await streamMessages(nc)).toBe(EVENTS);
    // The outage was felt (batches failed and were retried), not slept through.
    expect(relays[0]!.stats.failures).toBeGreaterThan(0);
  }, 90_000);
});

function duplicatesIn(ids: string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => seen.has(id) || !seen.add(id));
}

async function streamMessages(nc: NatsConnection): Promise<number> {
  const jsm = await nc.jetstreamManager();
  return (await jsm.streams.info(EVENTS_STREAM)).state.messages;
}
