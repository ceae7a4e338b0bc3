import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// The one list of processes `npm start` runs, with each one's share of the connection budget.
import { POSTGRES_CONNECTION_BUDGET, processes } from '../../scripts/processes.mjs';
import { api, uniqueName } from './client.js';
import { people, type Person } from './social.fixtures.js';

/** This file's own connections, left out of what is counted as the system's. */
const TEST_APPLICATION = 'kith-e2e-budget-test';

const dbPrefix = inject('dbPrefix');
const adminUrl = () => {
  const url = new URL(inject('stores').DATABASE_URL);
  url.searchParams.set('application_name', TEST_APPLICATION);
  return url;
};
const client = (database: string) => {
  const url = adminUrl();
  url.pathname = `/${database}`;
  return new pg.Client({ connectionString: url.toString() });
};

/** DB_CONNECTIONS of each process that owns a database, by database name. */
const shares = new Map(
  processes(0, dbPrefix)
    .filter((p) => p.env.DB_CONNECTIONS)
    .map((p) => [`${dbPrefix}_${p.name}`, Number(p.env.DB_CONNECTIONS)]),
);

interface Usage {
  /** Every connection of the stack's processes, by database. */
  total: Map<string, number>;
  /** Those waiting for a lock. */
  waiting: Map<string, number>;
}

let monitor: pg.Client;

/** The stack's connections now: every backend on one of its databases but this file's. */
async function usage(): Promise<Usage> {
  const { rows } = await monitor.query<{ datname: string; total: string; waiting: string }>(
    `SELECT datname, count(*) AS total, count(*) FILTER (WHERE wait_event_type = 'Lock') AS waiting
       FROM pg_stat_activity
      WHERE left(datname, length($1) + 1) = $1 || '_' AND application_name IS DISTINCT FROM $2
      GROUP BY datname`,
    [dbPrefix, TEST_APPLICATION],
  );
  return {
    total: new Map(rows.map((r) => [r.datname, Number(r.total)])),
    waiting: new Map(rows.map((r) => [r.datname, Number(r.waiting)])),
  };
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Polls pg_stat_activity until `done` holds (the test's own timeout bounds the wait). */
async function until(done: (u: Usage) => boolean): Promise<Usage> {
  for (;;) {
    const u = await usage();
    if (done(u)) return u;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Holds an exclusive lock on `table` of a service's database until released: every statement touching it waits, holding its connection. */
async function lockTable(database: string, table: string) {
  const c = client(database);
  await c.connect();
  await c.query('BEGIN');
  await c.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    release: async () => {
      await c.query('COMMIT');
      await c.end();
    },
  };
}

beforeAll(async () => {
  monitor = client('postgres');
  await monitor.connect();
});
afterAll(async () => {
  await monitor.end();
});

describe('PostgreSQL connections of the whole system (issue 12 finding 13)', () => {
  it('when every process owning a database is counted, then their shares fit a third of PostgreSQL’s default limit', () => {
    expect(POSTGRES_CONNECTION_BUDGET).toBe(33);
    expect([...shares.keys()].sort()).toEqual(
      expect.arrayContaining([`${dbPrefix}_auth`, `${dbPrefix}_guilds`, `${dbPrefix}_integrations`, `${dbPrefix}_social`]),
    );
    expect(sum(shares)).toBeLessThanOrEqual(33);
  });

  it('when auth, social and guilds each get more concurrent work than their pools hold, then each pool fills to its share and the stack stays within 33 connections', async () => {
    const [alice, bob]: Person[] = await people(2);
    const services: Busy[] = [
      {
        // Removing a relationship (none here) reads and locks the pair's rows.
        database: `${dbPrefix}_social`,
        table: 'relationships',
        request: () => api('DELETE', `/users/@me/relationships/${bob!.id}`, { token: alice!.token }),
        ok: 204,
      },
      {
        // A new guild's GUILD_CREATE goes to the outbox in its transaction.
        database: `${dbPrefix}_guilds`,
        table: 'outbox',
        request: () => api('POST', '/guilds', { token: bob!.token, body: { name: uniqueName('budget') } }),
        ok: 201,
      },
    ];
    // Last, and anonymous: the others' requests need auth (token checks, user lookups) to reach their own databases.
    const auth: Busy = {
      database: `${dbPrefix}_auth`,
      table: 'users',
      request: () => api('POST', '/unique-username/username-attempt-unauthed', { body: { username: uniqueName() } }),
      ok: 200,
    };
    const held: Held[] = [];
    try {
      held.push(...(await Promise.all(services.map(fill))));
      held.push(await fill(auth));
      // All three full at once: each holds exactly its share (its pool, and the outbox listener's connection).
      const now = await usage();
      for (const b of [...services, auth]) expect(now.total.get(b.database), b.database).toBe(shares.get(b.database));
      expect(sum(now.total)).toBeLessThanOrEqual(POSTGRES_CONNECTION_BUDGET);
    } finally {
      // Auth first: the others' requests may still need it to answer.
      for (const h of held.reverse()) await h.release();
    }
    // Waiting for a connection made them slower, never failed them.
    for (const h of held)
      for (const a of await h.answers) expect(a.status, `${h.busy.database}: ${JSON.stringify(a.json)}`).toBe(h.busy.ok);
    // Idle connections stay pooled for 30 s: whatever a pool opened under that load is still open.
    const after = await usage();
    for (const b of [...services, auth]) expect(after.total.get(b.database) ?? 0, b.database).toBeLessThanOrEqual(shares.get(b.database)!);
    expect(sum(after.total)).toBeLessThanOrEqual(POSTGRES_CONNECTION_BUDGET);
  });
});

interface Busy {
  database: string;
  /** Held under an exclusive lock: every request's statement on it waits, holding its pooled connection. */
  table: string;
  request: () => Promise<{ status: number; json: unknown }>;
  ok: number;
}
interface Held {
  busy: Busy;
  answers: Promise<{ status: number; json: unknown }[]>;
  release: () => Promise<void>;
}

/**
 * Locks the service's table, sends more requests than its pool has connections (the rest wait in
 * the pool, not in PostgreSQL) and returns once every pooled connection (all but the outbox
 * listener's) is stuck on the lock.
 */
async function fill(busy: Busy): Promise<Held> {
  const lock = await lockTable(busy.database, busy.table);
  const share = shares.get(busy.database)!;
  const answers = Promise.all(Array.from({ length: share + 4 }, () => busy.request()));
  answers.catch(() => undefined);
  await until((u) => (u.waiting.get(busy.database) ?? 0) >= share - 1);
  return { busy, answers, release: lock.release };
}
