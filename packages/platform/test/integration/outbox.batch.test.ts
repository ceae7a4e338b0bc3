import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databasePool } from '../../src/db.js';
import type { EventEnvelope } from '../../src/events.js';
import { OUTBOX_RELAY_LOCK_KEY, beginRelayBatch, countPending, markSentAndCommit } from '../../src/outbox.store.js';
import { SnowflakeGenerator } from '../../src/snowflake.js';
import { readStoredEvents } from '../../src/testing/index.js';
import { outboxDatabase, produce, sharedNats, startRelay, storedIds, testService, waitUntilSent } from './outbox.harness.js';

/** A session of its own on the test's database, ended when the test finishes. */
async function session(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  onTestFinished(() => client.end());
  return client;
}

/** Another replica in the middle of its batch: it holds the relay lock until it rolls back. */
async function holdRelayLock(url: string): Promise<pg.Client> {
  const holder = await session(url);
  await holder.query('BEGIN');
  await holder.query('SELECT pg_advisory_xact_lock($1)', [OUTBOX_RELAY_LOCK_KEY]);
  return holder;
}

describe('relay batch statements', () => {
  it('when another session holds the relay lock, then the batch is on standby and reads no event', async () => {
    const { db, url } = await outboxDatabase();
    await produce(db, 'svc', 3);
    const holder = await holdRelayLock(url);
    const relay = await session(url);

    expect(await beginRelayBatch(relay, 10)).toEqual({ locked: false });
    await relay.query('ROLLBACK');
    await holder.query('ROLLBACK');

    const batch = await beginRelayBatch(relay, 10);
    expect(batch.locked && batch.events).toHaveLength(3);
    await relay.query('ROLLBACK');
  });

  it('when the lock is free and nothing is pending, then the batch is idle: locked, with no event', async () => {
    const { url } = await outboxDatabase();
    const relay = await session(url);

    expect(await beginRelayBatch(relay, 10)).toEqual({ locked: true, events: [] });
    await relay.query('ROLLBACK');
  });

  it('when events are pending, then the oldest come in order with their JSON text, and marking them sent commits and frees the lock', async () => {
    const { db, url } = await outboxDatabase();
    const produced = await produce(db, 'svc', 5);
    const relay = await session(url);

    const batch = await beginRelayBatch(relay, 3);
    if (!batch.locked) throw new Error('expected the relay lock');
    expect(batch.events.map((e) => e.id)).toEqual(produced.slice(0, 3));
    const envelope = JSON.parse(batch.events[0]!.envelope) as EventEnvelope;
    expect(envelope).toMatchObject({ id: produced[0], service: 'svc', name: 'THING_HAPPENED', data: { n: 0 } });
    expect(batch.events[0]).toMatchObject({ subject: 'events.svc.THING_HAPPENED', headers: {} });

    await markSentAndCommit(
      relay,
      batch.events.map((e) => e.id),
    );
    expect(await countPending(db)).toBe(2);
    const other = await session(url);
    const { rows } = await other.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [OUTBOX_RELAY_LOCK_KEY]);
    expect(rows[0]!.locked).toBe(true);
  });

  it('when an id is not a bigint, then nothing is marked sent and the transaction stays to be rolled back', async () => {
    const { db, url } = await outboxDatabase();
    await produce(db, 'svc', 1);
    const relay = await session(url);

    const batch = await beginRelayBatch(relay, 10);
    if (!batch.locked) throw new Error('expected the relay lock');
    await expect(markSentAndCommit(relay, [batch.events[0]!.id, "1}'::bigint[]); DELETE FROM outbox; --"])).rejects.toThrow(
      'bad outbox id',
    );
    await relay.query('ROLLBACK');
    expect(await countPending(db)).toBe(1);
  });
});

describe('OutboxRelay round trips', () => {
  it('when events are committed one at a time, then every batch costs the relay two round trips to PostgreSQL', async () => {
    const database = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    const relayDb = database.open();
    // The relay's pool is its own here, so every query its clients send is the relay's.
    const sent: string[] = [];
    databasePool(relayDb)!.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        sent.push(typeof args[0] === 'string' ? args[0] : '(prepared)');
        return query(...args);
      };
    });
    const relay = startRelay({ db: relayDb, databaseUrl: database.url, nats: nc });

    const produced = await produce(database.db, service, 20);
    await waitUntilSent(database.db);
    await relay.stop();

    // Pruning is a statement of its own, once a minute; everything else comes in pairs.
    const batches = sent.filter((text) => !text.trim().startsWith('DELETE FROM outbox'));
    expect(batches.length % 2).toBe(0);
    const pairs = Array.from({ length: batches.length / 2 }, (_, n) => batches.slice(2 * n, 2 * n + 2));
    for (const [begin, end] of pairs) {
      expect(begin).toMatch(/^BEGIN;\s+SET LOCAL .*\s+WITH relay_lock/);
      expect(end).toMatch(/^(ROLLBACK|UPDATE outbox SET sent_at = now\(\) WHERE id = ANY\('\{[\d,]+\}'::bigint\[\]\); COMMIT)$/);
    }
    const marked = pairs.flatMap(([, end]) => /'\{([\d,]+)\}'/.exec(end!)?.[1]?.split(',') ?? []);
    expect(marked).toEqual(produced);
    expect(await storedIds(nc, subject)).toEqual(produced);
  });

  it('when its database was not opened by createDatabase, then the relay publishes through a connection of its own', async () => {
    const database = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    // Dropping the test's database at the end ends its idle connection: not an error of the test.
    pool.on('error', () => undefined);
    const foreign = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    onTestFinished(() => foreign.destroy());
    const relay = startRelay({ db: foreign, databaseUrl: database.url, nats: nc });

    const produced = await produce(database.db, service, 3, 0, new SnowflakeGenerator());
    await waitUntilSent(database.db);
    expect(await storedIds(nc, subject)).toEqual(produced);
    expect((await readStoredEvents<EventEnvelope>(nc, subject))[0]!.envelope).toMatchObject({ id: produced[0], service });
    expect(relay.stats).toMatchObject({ published: 3, failures: 0 });
  });
});
