import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENTS_STREAM,
  OutboxRelay,
  SnowflakeGenerator,
  createDatabase,
  createRedis,
  databaseUrl,
  enqueueEvent,
  ensureEventStream,
  openServiceDatabase,
  type Kysely,
} from '@kith/platform';
import { TestNatsServer, unique } from '@kith/platform/testing';
import { EventCopiesStore } from '../../src/store/event-copies.store.js';
import { GatewayClient, type ServerFrame } from './gateway.client.js';
import { newUser, sleep, startStack, startTestRealtime, stopStack, type RealtimeUnderTest, type Stack } from './harness.js';

/** The stream's duplicate window here: short, so an outage can outlast it within a test. */
const WINDOW_MS = 300;

let stack: Stack;
let nats: TestNatsServer;
let nc: NatsConnection;
let realtime: RealtimeUnderTest;
let folder: string;
let dbName: string;
let db: Kysely<unknown>;
const opened: Kysely<unknown>[] = [];

beforeAll(async () => {
  stack = await startStack();
  // NATS of this test's own: its stream's duplicate window is shortened, which no other test must see.
  nats = await TestNatsServer.start();
  nc = await connect({ servers: nats.url });
  realtime = await startTestRealtime(stack, { NATS_URL: nats.url });
  await ensureEventStream(nc, { duplicateWindowMs: WINDOW_MS });
  folder = await mkdtemp(join(tmpdir(), 'kith-relay-outage-'));
  dbName = unique('relay_outage_');
  // A service database with the platform's outbox (the migrations folder adds nothing).
  db = await openServiceDatabase({ adminUrl: stack.under.stores.DATABASE_URL, name: dbName, migrationsFolder: folder, maxConnections: 2 });
});

afterAll(async () => {
  await stopStack(stack);
  await Promise.all([...opened, db].map((d) => d?.destroy()));
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
  await rm(folder, { recursive: true, force: true });
  await nc?.close();
  await nats?.stop();
});

async function admin(text: string, values: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: stack.under.stores.DATABASE_URL });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** The service's relay as one of its processes runs it, with a pool named to find its connections. */
function startRelay(name: string) {
  const url = databaseUrl(stack.under.stores.DATABASE_URL, dbName);
  const relayDb = createDatabase<unknown>({ url: `${url}?application_name=${name}`, maxConnections: 2 });
  opened.push(relayDb);
  const relay = new OutboxRelay({
    db: relayDb,
    databaseUrl: url,
    nats: nc,
    backoffInitialMs: 50,
    backoffMaxMs: 200,
    pollIntervalMs: 50,
    // The relay sets the stream up as its deployment configures it.
    stream: { duplicateWindowMs: WINDOW_MS },
  });
  relay.start();
  return relay;
}

const ids = new SnowflakeGenerator();
const service = unique('svc');

/** One event for the user, committed to the outbox as a service does. */
const produce = (userId: string, i: number) =>
  db
    .transaction()
    .execute((trx) => enqueueEvent(trx, service, { name: 'RELATIONSHIP_ADD', audience: { users: [userId] }, data: { i } }, ids));

const numbered = (frames: ServerFrame[]) => frames.filter((f) => f.t === 'RELATIONSHIP_ADD').map((f) => [(f.d as { i: number }).i, f.s]);

describe('a relay that dies after the stream stored its batch, down longer than the duplicate window', () => {
  it('when it comes back and publishes the batch again, then live and resumed sockets get every event exactly once', async () => {
    const user = await newUser(stack);
    const live = (await GatewayClient.ready(realtime.url, user.token)).client;
    const away = await GatewayClient.ready(realtime.url, user.token);

    const first = startRelay(unique('relay_a'));
    await produce(user.userId, 0);
    await live.next((f) => (f.d as { i?: number }).i === 0);
    await away.client.next((f) => (f.d as { i?: number }).i === 0);
    await first.stop();
    // This client's network goes; it resumes at the end.
    away.client.drop();

    // Events 1-5 wait in the outbox. A process of the service publishes them, and dies before
    // marking them sent: its UPDATE waits on rows held by this lock, and its connections end.
    for (let i = 1; i <= 5; i++) await produce(user.userId, i);
    const locker = new pg.Client({ connectionString: databaseUrl(stack.under.stores.DATABASE_URL, dbName) });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM outbox WHERE sent_at IS NULL FOR UPDATE');
    const dying = unique('relay_b');
    const second = startRelay(dying);
    await live.next((f) => (f.d as { i?: number }).i === 5, 10_000);
    const stopped = second.stop();
    await admin('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [dying]);
    await stopped;
    await locker.query('ROLLBACK');
    await locker.end();

    // Down for longer than the window (the stream forgets ids a window or two after storing them).
    await sleep(WINDOW_MS * 4);
    const third = startRelay(unique('relay_c'));
    await produce(user.userId, 6);
    await live.next((f) => (f.d as { i?: number }).i === 6, 10_000);

    // The stream did store the batch twice: the copies reached realtime.
    expect(third.stats).toMatchObject({ published: 5 + 1, duplicates: 0 });
    const jsm = await nc.jetstreamManager();
    expect((await jsm.streams.info(EVENTS_STREAM)).state.messages).toBe(1 + 5 + 5 + 1);

    const all = [0, 1, 2, 3, 4, 5, 6].map((i) => [i, i + 2]);
    expect(numbered(live.frames)).toEqual(all);

    const back = await GatewayClient.connect(realtime.url);
    back.send(6, { token: user.token, session_id: away.ready.session_id, seq: 2 });
    await back.next((f) => f.t === 'RESUMED');
    expect(numbered(back.frames)).toEqual(all.slice(1));
    live.close();
    back.close();
  }, 60_000);
});

describe('EventCopiesStore', () => {
  const stores = () => {
    const redis = createRedis(stack.under.stores.REDIS_URL, `${unique('copies')}:`);
    return { redis, store: (perService: number) => new EventCopiesStore(redis, perService) };
  };
  const at = (svc: string, id: string, streamSeq: number) => ({
    event: { id, service: svc, name: 'X', occurred_at: '', audience: {}, data: null },
    streamSeq,
  });
  const seqs = (events: { streamSeq: number }[]) => events.map((e) => e.streamSeq);

  it('when an id comes again at another position, then it is a copy for every replica; at the same position (a redelivery), then it is not', async () => {
    const { redis, store } = stores();
    const one = store(100);
    const other = store(100);
    expect(seqs(await one.firstCopies([at('a', '1', 10), at('a', '2', 11), at('a', '1', 12)]))).toEqual([10, 11]);
    expect(seqs(await other.firstCopies([at('a', '1', 10), at('a', '2', 11), at('a', '1', 12), at('a', '3', 13)]))).toEqual([10, 11, 13]);
    expect(seqs(await one.firstCopies([at('a', '2', 20), at('b', '2', 21)]))).toEqual([21]);
    await redis.quit();
  });

  it('when a service publishes more than the cap, then its oldest ids are forgotten while a quiet service keeps its own', async () => {
    const { redis, store } = stores();
    const copies = store(3);
    await copies.firstCopies([at('quiet', 'q', 1)]);
    await copies.firstCopies([2, 3, 4, 5].map((n) => at('busy', String(n), n)));
    expect(seqs(await copies.firstCopies([at('busy', '2', 50), at('busy', '5', 51), at('quiet', 'q', 52)]))).toEqual([50]);
    await redis.quit();
  });
});
