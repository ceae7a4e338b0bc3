import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { countPending } from '../../src/outbox.store.js';
import { connectNats } from '../../src/stores.js';
import { unique } from '../../src/testing/index.js';
import {
  outboxDatabase,
  produce,
  sharedNats,
  startRelay,
  stores,
  storedIds,
  terminateConnections,
  testService,
  waitUntilSent,
} from './outbox.harness.js';

/** Replicas of one service: each with its own pool and NATS connection, as separate processes have. */
async function startReplicas(count: number, database: Awaited<ReturnType<typeof outboxDatabase>>) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const nc = await connectNats(stores.NATS_URL, unique('replica'));
      onTestFinished(() => nc.close());
      return startRelay({ db: database.open(), databaseUrl: database.url, nats: nc, batchSize: 25 });
    }),
  );
}

describe('OutboxRelay replicas', () => {
  it.each([2, 3])('when %i relays run on one database at once, then every event is published exactly once, in order', async (count) => {
    const database = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    const relays = await startReplicas(count, database);

    const produced = await produce(database.db, service, 400);

    await waitUntilSent(database.db);
    expect(await storedIds(nc, subject)).toEqual(produced);
    expect(relays.reduce((sum, r) => sum + r.stats.published, 0)).toBe(400);
    expect(relays.reduce((sum, r) => sum + r.stats.duplicates, 0)).toBe(0);
  });

  it('when a relay dies after publishing a batch but before committing it, then the next one republishes it and the stream drops the copies', async () => {
    const database = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    const produced = await produce(database.db, service, 30);

    // Holding the rows' locks makes the relay's "mark sent" wait: it stops between publish and commit.
    const locker = new pg.Client({ connectionString: database.url });
    locker.on('error', () => undefined);
    await locker.connect();
    onTestFinished(() => locker.end());
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM outbox FOR UPDATE');

    const doomed = startRelay({ db: database.open('doomed_relay'), databaseUrl: database.url, nats: nc });
    await expect.poll(() => doomed.stats.published).toBe(30);
    const stopped = doomed.stop();
    await terminateConnections('doomed_relay');
    await stopped;
    await locker.query('ROLLBACK');
    expect(await countPending(database.db)).toBe(30);

    const successor = startRelay({ db: database.open(), databaseUrl: database.url, nats: nc });
    await waitUntilSent(database.db);
    expect(successor.stats).toMatchObject({ published: 0, duplicates: 30 });
    expect(await storedIds(nc, subject)).toEqual(produced);
  });

  it('when the connection it LISTENs on is ended, then the relay listens again and is still woken at once', async () => {
    const database = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    const listenerName = unique('listener');
    // With a poll this rare, only notifications can get the events out within the test.
    startRelay({ db: database.open(), databaseUrl: `${database.url}?application_name=${listenerName}`, nats: nc, pollIntervalMs: 60_000 });
    const first = await produce(database.db, service, 1);
    await waitUntilSent(database.db, 5_000);

    await expect.poll(async () => (await terminateConnections(listenerName)).length).toBe(1);
    await expect.poll(async () => (await listeners(database.url, listenerName)).length, { timeout: 5_000 }).toBe(1);
    const second = await produce(database.db, service, 1, 1);
    await waitUntilSent(database.db, 5_000);
    expect(await storedIds(nc, subject)).toEqual([...first, ...second]);
  });
});

/** The backends of this application name that are LISTENing, seen from pg_stat_activity. */
async function listeners(url: string, applicationName: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'", [
      applicationName,
    ]);
    return rows;
  } finally {
    await client.end();
  }
}
