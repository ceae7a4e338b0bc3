import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, inject } from 'vitest';
import { ApiError, databaseUrl, ensureDatabase, migrate, Outbox, SnowflakeGenerator, sql } from '@kith/platform';
import type { UserDirectory } from '../../src/domain/ports.js';
import { RelationshipType as T, type PartialUser } from '../../src/domain/relationship.types.js';
import { RelationshipsService } from '../../src/domain/relationships.service.js';
import { PgRelationshipStore } from '../../src/store/relationships.store.js';
import type { SocialDatabase } from '../../src/store/schema.js';
import { contractUser as partialUser, testDbPrefix } from '@kith/platform/testing';

/**
 * What each relationship change costs in PostgreSQL round trips, counted on the real pg pool under
 * the real store, and that the fewer round trips keep every guarantee: the change and its events
 * commit together or not at all, values arrive byte for byte, a failed change leaves no transaction
 * open on a pooled connection, and changes to one user stay serialised.
 */

const DB_NAME = `${testDbPrefix()}_social_roundtrips`;
const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));

interface Sent {
  text: string;
  /** pg sends a query without parameters as one simple-protocol message, which may hold several statements. */
  simple: boolean;
}

let pool: pg.Pool;
let db: Kysely<SocialDatabase>;
let sent: Sent[] = [];

/** A pool whose clients log every query they send: one `query` call is one round trip. */
function countingPool(inner: pg.Pool) {
  return {
    connect: async () => {
      const client = (await inner.connect()) as pg.PoolClient & { counted?: boolean };
      if (!client.counted) {
        const query = client.query.bind(client) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
        Object.assign(client, {
          counted: true,
          query: (text: string, values?: unknown[]) => {
            sent.push({ text, simple: !values || values.length === 0 });
            return query(text, values);
          },
        });
      }
      return client;
    },
    end: () => inner.end(),
  };
}

let next = 100_000_000_000_000_000n;
const newId = () => String(next++);
const user = (id: string): PartialUser => partialUser(id, `u${id.slice(-4)}`);

/** Auth as social sees it: every user exists, anyone may ask anyone. */
const users: UserDirectory = {
  getUsers: async (ids) => new Map(ids.map((id) => [id, user(id)])),
  findByUsername: async () => undefined,
  friendSourceFlags: async () => ({ all: true, mutual_friends: true, mutual_guilds: true }),
};

let service: RelationshipsService;

beforeAll(async () => {
  const { DATABASE_URL } = inject('stores');
  await ensureDatabase(DATABASE_URL, DB_NAME);
  pool = new pg.Pool({ connectionString: databaseUrl(DATABASE_URL, DB_NAME), max: 6 });
  db = new Kysely<SocialDatabase>({ dialect: new PostgresDialect({ pool: countingPool(pool) as unknown as pg.Pool }) });
  await migrate(db as Kysely<unknown>, MIGRATIONS);
  // The database outlives a run; ids start over in each.
  await sql`TRUNCATE relationships, relationship_versions, outbox`.execute(db);
  const outbox = new Outbox('social', new SnowflakeGenerator());
  const store = new PgRelationshipStore(db, outbox);
  service = new RelationshipsService(store, users, null);
});

afterAll(async () => {
  await db?.destroy();
});

beforeEach(() => {
  sent = [];
});

/** The round trips `change` makes. */
async function roundTrips(change: () => Promise<unknown>): Promise<Sent[]> {
  sent = [];
  await change();
  const trips = sent;
  sent = [];
  return trips;
}

async function friends(): Promise<[string, string]> {
  const [a, b] = [newId(), newId()];
  await service.requestOrAcceptById(a, b, {});
  await service.requestOrAcceptById(b, a, {});
  return [a, b];
}

async function outboxFor(userId: string): Promise<{ name: string; data: Record<string, unknown> }[]> {
  const { rows } = await sql<{ envelope: { name: string; data: Record<string, unknown>; audience: { users: string[] } } }>`
    SELECT envelope FROM outbox ORDER BY id`.execute(db);
  return rows.map((r) => r.envelope).filter((e) => e.audience.users.includes(userId));
}

async function row(userId: string, targetId: string) {
  return db.selectFrom('relationships').selectAll().where('user_id', '=', userId).where('target_id', '=', targetId).executeTakeFirst();
}

async function version(userId: string): Promise<bigint> {
  const r = await db.selectFrom('relationship_versions').select('version').where('user_id', '=', userId).executeTakeFirst();
  return BigInt(r?.version ?? '0');
}

/** No connection of the pool is left inside a transaction. */
async function noOpenTransaction(): Promise<void> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM pg_stat_activity WHERE datname = ${DB_NAME} AND state LIKE 'idle in transaction%'`.execute(db);
  expect(Number(rows[0]!.n)).toBe(0);
}

describe('round trips per change', () => {
  it('a nickname edit is 3: BEGIN with the lock, the read, the write with its event and COMMIT', async () => {
    const [a, b] = await friends();
    const before = await version(a);
    const trips = await roundTrips(() => service.setNickname(a, b, 'bestie'));
    expect(trips).toHaveLength(3);
    expect(trips[0]!.simple).toBe(true);
    expect(trips[0]!.text).toMatch(/^BEGIN;\s*SELECT pg_advisory_xact_lock/);
    expect(trips[2]!.simple).toBe(true);
    expect(trips[2]!.text).toMatch(/^WITH w0 AS \(insert into "relationships"[\s\S]*INSERT INTO outbox[\s\S]*;\s*COMMIT$/i);
    expect((await row(a, b))?.nickname).toBe('bestie');
    expect(await version(a)).toBeGreaterThan(before);
    expect((await outboxFor(a)).at(-1)).toMatchObject({ name: 'RELATIONSHIP_UPDATE', data: { id: b, nickname: 'bestie' } });
  });

  it('a friend request is 3 (was 8), an accept 3 (was 7), a removal 3 (was 8), a block 3 (was 7)', async () => {
    const [a, b, c] = [newId(), newId(), newId()];
    expect(await roundTrips(() => service.requestOrAcceptById(a, b, {}))).toHaveLength(3);
    expect((await row(b, a))?.type).toBe(T.INCOMING_REQUEST);
    expect(await roundTrips(() => service.acceptById(b, a, {}))).toHaveLength(3);
    expect((await row(a, b))?.type).toBe(T.FRIEND);
    expect(await roundTrips(() => service.remove(a, b))).toHaveLength(3);
    expect(await row(a, b)).toBeUndefined();
    expect(await row(b, a)).toBeUndefined();
    await service.requestOrAcceptById(a, c, {});
    expect(await roundTrips(() => service.block(c, a))).toHaveLength(3);
    expect((await row(c, a))?.type).toBe(T.BLOCKED);
    expect(await row(a, c)).toBeUndefined();
    expect((await outboxFor(a)).map((e) => e.name)).toEqual([
      'RELATIONSHIP_ADD',
      'RELATIONSHIP_ADD',
      'RELATIONSHIP_REMOVE',
      'RELATIONSHIP_ADD',
      'RELATIONSHIP_REMOVE',
    ]);
  });

  it('a change that decides nothing is to be done still ends its transaction, in 3', async () => {
    const [a, b] = await friends();
    await service.setNickname(a, b, 'same');
    const trips = await roundTrips(() => service.setNickname(a, b, 'same'));
    expect(trips.map((t) => t.text.trim()).at(-1)).toBe('COMMIT');
    expect(trips).toHaveLength(3);
    await noOpenTransaction();
  });
});

describe('the guarantees hold', () => {
  it('values travel byte for byte in the row and in the event, quotes, backslashes and all', async () => {
    const [a, b] = await friends();
    const nasty = `O'Brien \\ \\' "x" $1 ?? \u{1F4A5} \\x00 '; DROP TABLE relationships; --`;
    await service.setNickname(a, b, nasty);
    expect((await row(a, b))?.nickname).toBe(nasty);
    expect((await outboxFor(a)).at(-1)?.data.nickname).toBe(nasty);
  });

  it('a value that cannot be written as a literal goes as a parameter, and its failure rolls everything back', async () => {
    const [a, b] = await friends();
    const events = (await outboxFor(a)).length;
    const before = await version(a);
    // PostgreSQL text cannot hold NUL: the write fails, and with it the change and its event.
    await expect(service.setNickname(a, b, 'nul\0here')).rejects.toThrow();
    expect((await row(a, b))?.nickname).toBeNull();
    expect(await outboxFor(a)).toHaveLength(events);
    expect(await version(a)).toBe(before);
    await noOpenTransaction();
    await service.setNickname(a, b, 'after');
    expect((await row(a, b))?.nickname).toBe('after');
  });

  it('a refused change rolls back and leaves its connection out of any transaction', async () => {
    const [a, b] = [newId(), newId()];
    const trips = await roundTrips(() => expect(service.setNickname(a, b, 'x')).rejects.toBeInstanceOf(ApiError));
    expect(trips.map((t) => t.text.trim()).at(-1)).toBe('ROLLBACK');
    await noOpenTransaction();
  });

  it('changes to one user stay serialised: concurrent edits all land, each event in commit order', async () => {
    const [a, b] = await friends();
    const nicknames = Array.from({ length: 12 }, (_, i) => `n${i}`);
    await Promise.all(nicknames.map((n) => service.setNickname(a, b, n)));
    const updates = (await outboxFor(a)).filter((e) => e.name === 'RELATIONSHIP_UPDATE').map((e) => e.data.nickname);
    expect(updates).toHaveLength(12);
    expect(new Set(updates)).toEqual(new Set(nicknames));
    // The last event in outbox order is the value that stayed.
    expect((await row(a, b))?.nickname).toBe(updates.at(-1));
  });

  it('two users asking each other at once end as friends, with no request left over', async () => {
    for (let i = 0; i < 5; i++) {
      const [a, b] = [newId(), newId()];
      await Promise.all([service.requestOrAcceptById(a, b, {}), service.requestOrAcceptById(b, a, {})]);
      expect((await row(a, b))?.type).toBe(T.FRIEND);
      expect((await row(b, a))?.type).toBe(T.FRIEND);
    }
  });

  it('the friend cap holds under concurrent accepts', async () => {
    const a = newId();
    // a is one friend short of the cap, with three requests waiting.
    const flags = { is_spam_request: false, stranger_request: false, user_ignored: false };
    const rows = Array.from({ length: 999 }, () => newId()).flatMap((f) => [
      { user_id: a, target_id: f, type: T.FRIEND, ...flags },
      { user_id: f, target_id: a, type: T.FRIEND, ...flags },
    ]);
    for (let i = 0; i < rows.length; i += 1000)
      await db
        .insertInto('relationships')
        .values(rows.slice(i, i + 1000))
        .execute();
    const senders = [newId(), newId(), newId()];
    for (const s of senders) await service.requestOrAcceptById(s, a, {});
    const results = await Promise.allSettled(senders.map((s) => service.acceptById(a, s, {})));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const { n } = await db
      .selectFrom('relationships')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', a)
      .where('type', '=', T.FRIEND)
      .executeTakeFirstOrThrow();
    // The platform's documented cap: 1,000 friends.
    expect(Number(n)).toBe(1000);
  });

  it('removing several incoming requests at once ends every pair, on both sides', async () => {
    const a = newId();
    const senders = [newId(), newId(), newId()];
    for (const s of senders) await service.requestOrAcceptById(s, a, {});
    await service.removeIncoming(a, { spam: false, ignored: false });
    for (const s of senders) {
      expect(await row(a, s)).toBeUndefined();
      expect(await row(s, a)).toBeUndefined();
    }
    await noOpenTransaction();
  });
});
