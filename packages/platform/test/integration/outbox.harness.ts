import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, inject, onTestFinished } from 'vitest';
import type {} from '../../src/testing/global-setup.js';
import { readStoredEvents, unique, type StoredEvent } from '../../src/testing/index.js';
import { createDatabase, databaseUrl, openServiceDatabase, type Kysely } from '../../src/db.js';
import { EVENTS_STREAM, eventSubject, type EventEnvelope } from '../../src/events.js';
import { enqueueEvent } from '../../src/outbox.js';
import { OutboxRelay, type OutboxRelayOptions } from '../../src/outbox.relay.js';
import { countPending } from '../../src/outbox.store.js';
import { SnowflakeGenerator } from '../../src/snowflake.js';
import { connectNats, type NatsConnection } from '../../src/stores.js';

export const stores = inject('stores');

export async function adminQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: stores.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Ends every connection a Kysely instance opened with this application_name: a crashed process's. */
export const terminateConnections = (applicationName: string) =>
  adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);

/**
 * A service database of this test's own (the platform migrations give it its outbox), dropped when
 * the test finishes. `open` gives another replica's pool onto it, named for pg_stat_activity.
 */
export async function outboxDatabase() {
  const name = unique('outbox_');
  const folder = await mkdtemp(join(tmpdir(), 'kith-outbox-'));
  const opened: Kysely<unknown>[] = [];
  onTestFinished(async () => {
    await Promise.all(opened.map((d) => d.destroy()));
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await rm(folder, { recursive: true, force: true });
  });
  const db = await openServiceDatabase<unknown>({ adminUrl: stores.DATABASE_URL, name, migrationsFolder: folder, maxConnections: 4 });
  opened.push(db);
  const url = databaseUrl(stores.DATABASE_URL, name);
  return {
    db,
    url,
    open(applicationName = unique('replica')): Kysely<unknown> {
      const replica = createDatabase<unknown>({ url: `${url}?application_name=${applicationName}`, maxConnections: 3 });
      opened.push(replica);
      return replica;
    },
  };
}

/** A connection to the shared NATS, closed when the test finishes. */
export async function sharedNats(): Promise<NatsConnection> {
  const nc = await connectNats(stores.NATS_URL, unique('outbox-test'));
  onTestFinished(() => nc.close());
  return nc;
}

/** A service name no other test uses, so its subjects are its own; its messages are purged afterwards. */
export function testService(nc: NatsConnection): { service: string; subject: string } {
  const service = unique('t');
  const subject = eventSubject(service, 'THING_HAPPENED');
  onTestFinished(async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.purge(EVENTS_STREAM, { filter: `events.${service}.>` }).catch(() => undefined);
  });
  return { service, subject };
}

/** A relay with quick retries, stopped when the test finishes. */
export function startRelay(options: OutboxRelayOptions<unknown>): OutboxRelay<unknown> {
  const relay = new OutboxRelay({ backoffInitialMs: 50, backoffMaxMs: 500, publishTimeoutMs: 2_000, ...options });
  relay.start();
  onTestFinished(() => relay.stop());
  return relay;
}

/** Commits one THING_HAPPENED event per transaction, for a few users in turn; returns their ids. */
export async function produce(db: Kysely<unknown>, service: string, count: number, from = 0, ids = new SnowflakeGenerator()) {
  const produced: string[] = [];
  for (let n = from; n < from + count; n++) produced.push(await produceOne(db, service, n, ids));
  return produced;
}

export async function produceOne(db: Kysely<unknown>, service: string, n: number, ids: SnowflakeGenerator): Promise<string> {
  const envelope = await db
    .transaction()
    .execute((trx) => enqueueEvent(trx, service, { name: 'THING_HAPPENED', audience: { users: [`${n % 5}`] }, data: { n } }, ids));
  return envelope.id;
}

export async function waitUntilSent(db: Kysely<unknown>, timeout = 20_000): Promise<void> {
  await expect.poll(() => countPending(db), { timeout, interval: 50 }).toBe(0);
}

/** What the stream holds on a subject, as event ids in stream order. */
export async function storedIds(nc: NatsConnection, subject: string): Promise<string[]> {
  return (await readStoredEvents<EventEnvelope>(nc, subject)).map((e: StoredEvent) => e.envelope.id);
}
