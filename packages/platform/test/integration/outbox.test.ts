import { describe, expect, it } from 'vitest';
import { sql } from '../../src/db.js';
import { enqueueEvent, enqueueEvents, Outbox, OUTBOX_CHANNEL, outboxInsertWhen } from '../../src/outbox.js';
import { countPending } from '../../src/outbox.store.js';
import { SnowflakeGenerator, snowflakeTime } from '../../src/snowflake.js';
import { readStoredEvents } from '../../src/testing/index.js';
import { outboxDatabase, produce, sharedNats, startRelay, storedIds, testService, waitUntilSent } from './outbox.harness.js';

const ids = new SnowflakeGenerator();

describe('enqueueEvent', () => {
  it('when the transaction rolls back, then nothing is written or published', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    const relay = startRelay({ db, databaseUrl: url, nats: nc });

    await expect(
      db.transaction().execute(async (trx) => {
        await enqueueEvent(trx, service, { name: 'THING_HAPPENED', audience: { users: ['1'] }, data: { n: 0 } }, ids);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    // A committed event after it, so that "nothing" is not just "not yet".
    const [after] = await produce(db, service, 1, 1);

    await waitUntilSent(db);
    expect(await storedIds(nc, subject)).toEqual([after]);
    expect(relay.stats).toMatchObject({ published: 1, duplicates: 0 });
  });

  it('when the transaction commits, then the envelope is published once with Nats-Msg-Id = its id', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    startRelay({ db, databaseUrl: url, nats: nc });

    const envelope = await db.transaction().execute((trx) =>
      enqueueEvent(
        trx,
        service,
        {
          name: 'THING_HAPPENED',
          audience: { users: ['42', '43'] },
          data: { id: '9007199254740993', nested: { list: [1, 'two', null] } },
          internal: { revoked_session_ids: ['s1'] },
        },
        ids,
      ),
    );

    await waitUntilSent(db);
    const stored = await readStoredEvents(nc, subject);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ subject, msgId: envelope.id, envelope });
    expect(envelope).toEqual({
      id: expect.stringMatching(/^\d+$/),
      service,
      name: 'THING_HAPPENED',
      occurred_at: snowflakeTime(envelope.id).toISOString(),
      audience: { users: ['42', '43'] },
      data: { id: '9007199254740993', nested: { list: [1, 'two', null] } },
      internal: { revoked_session_ids: ['s1'] },
    });
  });

  it('when 500 events are committed one by one, then the stream holds each once, in commit order', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    const relay = startRelay({ db, databaseUrl: url, nats: nc });

    const produced = await produce(db, service, 500);

    await waitUntilSent(db);
    expect(await storedIds(nc, subject)).toEqual(produced);
    expect(relay.stats).toMatchObject({ published: 500, duplicates: 0, failures: 0 });
  });

  it('when several events are written in one transaction, then they are published in the order given', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    startRelay({ db, databaseUrl: url, nats: nc });

    const envelopes = await db.transaction().execute((trx) =>
      enqueueEvents(
        trx,
        service,
        Array.from({ length: 20 }, (_, n) => ({ name: 'THING_HAPPENED', audience: { users: ['7'] }, data: { n } })),
        ids,
      ),
    );

    await waitUntilSent(db);
    expect(await storedIds(nc, subject)).toEqual(envelopes.map((e) => e.id));
  });

  it('when the service or event name would change the subject, then it is refused and nothing is written', async () => {
    const { db } = await outboxDatabase();
    for (const [service, name] of [
      ['auth.x', 'OK'],
      ['auth', 'A.B'],
      ['auth', '*'],
      ['auth', 'HAS SPACE'],
      ['', 'OK'],
    ] as const) {
      await expect(db.transaction().execute((trx) => enqueueEvent(trx, service, { name, audience: {}, data: null }, ids))).rejects.toThrow(
        /bad (service|event) name/,
      );
    }
    expect(await countPending(db)).toBe(0);
  });

  it('when an event commits, then the relay is woken by its notification rather than by polling', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    // Polling so rarely that only the NOTIFY can explain a prompt publish.
    startRelay({ db, databaseUrl: url, nats: nc, pollIntervalMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Sent at all before the next poll (a minute away) means the notification woke the relay.
    const produced = await produce(db, service, 1);
    await waitUntilSent(db, 20_000);
    expect(await storedIds(nc, subject)).toEqual(produced);
  });
});

describe('OutboxRelay.prune', () => {
  it('when rows were sent long ago, then only those are deleted, in bounded batches', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service } = testService(nc);
    const relay = startRelay({ db, databaseUrl: url, nats: nc, pruneAfterMs: 3_600_000, pruneBatchSize: 2, pruneIntervalMs: 3_600_000 });

    const old = await produce(db, service, 5);
    const recent = await produce(db, service, 2, 5);
    await waitUntilSent(db);
    await sql`UPDATE outbox SET sent_at = now() - interval '2 hours' WHERE id = ANY(${old}::bigint[])`.execute(db);
    // Pending rows are never pruned, however old.
    await relay.stop();
    const [pending] = await produce(db, service, 1, 7);
    await sql`UPDATE outbox SET created_at = now() - interval '3 hours' WHERE id = ${pending}`.execute(db);

    expect(await relay.prune()).toBe(5);
    const { rows } = await sql<{ id: string; sent: boolean }>`SELECT id, sent_at IS NOT NULL AS sent FROM outbox ORDER BY seq`.execute(db);
    expect(rows).toEqual([...recent.map((id) => ({ id, sent: true })), { id: pending, sent: false }]);
    expect(relay.stats.pruned).toBe(5);
  });

  it('when the relay runs, then it prunes sent rows on its own once they are old enough', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service } = testService(nc);
    const relay = startRelay({ db, databaseUrl: url, nats: nc, pruneAfterMs: 200, pruneIntervalMs: 100 });

    await produce(db, service, 10);
    await waitUntilSent(db);
    await expect.poll(async () => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox`.execute(db)).rows[0]!.n).toBe(0);
    expect(relay.stats.pruned).toBe(10);
  });
});

describe('outboxInsertWhen', () => {
  it('when its condition does not hold, then nothing is written; when it holds, then its events are published in the order given', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    const relay = startRelay({ db, databaseUrl: url, nats: nc });
    const events = [
      { name: 'THING_HAPPENED', audience: { users: ['1'] }, data: { n: 1 } },
      { name: 'THING_HAPPENED', audience: { users: ['1'] }, data: { n: 2 } },
    ];
    // As a store uses it: one CTE of a statement, waking the relay when it wrote anything.
    const write = async (holds: boolean) => {
      const { insert, envelopes } = outboxInsertWhen(service, events, ids, holds ? sql`true` : sql`false`);
      const { rows } = await sql<{ written: number }>`WITH events AS (${insert})
        SELECT (SELECT count(*)::int FROM events) AS written,
          (SELECT pg_notify(${OUTBOX_CHANNEL}, '') FROM (SELECT 1 FROM events LIMIT 1) AS one) AS woke`.execute(db);
      return { written: rows[0]!.written, envelopes };
    };

    expect((await write(false)).written).toBe(0);
    // Written after the refused one, so that "nothing" is not just "not yet".
    const { written, envelopes } = await write(true);
    expect(written).toBe(2);

    await waitUntilSent(db);
    expect(await storedIds(nc, subject)).toEqual(envelopes.map((e) => e.id));
    expect(relay.stats).toMatchObject({ published: 2, duplicates: 0 });
  });
});

describe('Outbox.commitWith', () => {
  it('when a transaction ends with events, then they commit with it (quotes, backslashes, control characters alike) and a failure commits nothing', async () => {
    const { db, url } = await outboxDatabase();
    const nc = await sharedNats();
    const { service, subject } = testService(nc);
    startRelay({ db, databaseUrl: url, nats: nc });
    const outbox = new Outbox(service, ids);
    const event = (text: string) => ({ name: 'THING_HAPPENED', audience: { users: ['1'] }, data: { text } });
    const inTransaction = (fn: (conn: typeof db) => Promise<void>) =>
      db.connection().execute(async (conn) => {
        await sql.raw('BEGIN').execute(conn);
        try {
          await fn(conn);
        } catch (err) {
          await sql.raw('ROLLBACK').execute(conn);
          throw err;
        }
      });

    // Written in as literals (one message): text that would break a naive quoting.
    await inTransaction((conn) => outbox.commitWith(conn, [event(`it's a \\ back'slash $1 ;COMMIT`), event('second')]));
    // Control characters travel escaped inside the JSON text.
    await inTransaction((conn) => outbox.commitWith(conn, [event('a\u0001b')]));
    // No events: just the COMMIT.
    await inTransaction((conn) => outbox.commitWith(conn, []));
    // The outbox statement fails (no such table on this connection's path): nothing commits.
    await expect(
      inTransaction(async (conn) => {
        await sql.raw('SET LOCAL search_path = nowhere').execute(conn);
        await outbox.commitWith(conn, [event('lost')]);
      }),
    ).rejects.toThrow();

    await waitUntilSent(db);
    const stored = await readStoredEvents(nc, subject);
    expect(stored.map((s) => (s.envelope as { data: { text: string } }).data.text)).toEqual([
      `it's a \\ back'slash $1 ;COMMIT`,
      'second',
      'a\u0001b',
    ]);
  });
});
