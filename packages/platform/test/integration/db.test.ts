import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type {} from '../../src/testing/global-setup.js';
import { unique } from '@kith/platform/testing';
import { createDatabase, databaseUrl, ensureDatabase, migrate, openServiceDatabase, sql, type Kysely } from '../../src/db.js';
import { createLogger } from '../../src/logger.js';

const { DATABASE_URL } = inject('stores');

async function adminQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A database name no other test uses; when the test finishes, the Kysely instances it opened are
 * destroyed and the database is dropped.
 */
function freshDatabase() {
  const name = unique('platform_db_');
  const opened: Kysely<unknown>[] = [];
  onTestFinished(async () => {
    await Promise.all(opened.map((db) => db.destroy()));
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  return {
    name,
    url: databaseUrl(DATABASE_URL, name),
    open<DB = unknown>(): Kysely<DB> {
      const db = createDatabase<DB>({ url: databaseUrl(DATABASE_URL, name), maxConnections: 2 });
      opened.push(db as Kysely<unknown>);
      return db;
    },
    track(db: Kysely<unknown>) {
      opened.push(db);
    },
  };
}

/** A temporary migrations folder holding the given files; removed when the test finishes. */
async function migrationsFolder(files: Record<string, string>): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'kith-migrations-'));
  onTestFinished(() => rm(folder, { recursive: true, force: true }));
  await Promise.all(Object.entries(files).map(([file, text]) => writeFile(join(folder, file), text)));
  return folder;
}

const databaseExists = async (name: string) => (await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).length === 1;

async function appliedMigrations(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY timestamp, name`.execute(db);
  return rows.map((r) => r.name);
}

/** The platform's own migrations, applied before every service's: the outbox. */
const PLATFORM = ['0000_platform_outbox', '0000_platform_outbox_vacuum'];

const threeMigrations = {
  '0001_users.sql': 'CREATE TABLE users (id bigint PRIMARY KEY, username text NOT NULL);',
  '0002_user_birthdays.sql': 'ALTER TABLE users ADD COLUMN birthday date;',
  '0010_sessions.sql':
    'CREATE TABLE sessions (id bigint PRIMARY KEY, user_id bigint NOT NULL REFERENCES users (id));\nCREATE INDEX sessions_user ON sessions (user_id);',
  'README.md': 'not a migration',
};

describe('databaseUrl', () => {
  it('when given an admin URL and a name, then only the database path changes', () => {
    expect(databaseUrl('postgres://kith:s3cret@db.internal:5433/postgres?sslmode=require', 'kith_auth')).toBe(
      'postgres://kith:s3cret@db.internal:5433/kith_auth?sslmode=require',
    );
  });
});

describe('ensureDatabase', () => {
  it('when the database does not exist, then it is created, and a second call changes nothing', async () => {
    const { name } = freshDatabase();
    expect(await databaseExists(name)).toBe(false);
    await ensureDatabase(DATABASE_URL, name);
    expect(await databaseExists(name)).toBe(true);
    await expect(ensureDatabase(DATABASE_URL, name)).resolves.toBeUndefined();
    expect(await databaseExists(name)).toBe(true);
  });

  it('when 5 replicas ensure the same new database at once, then all succeed and it exists once', async () => {
    const { name } = freshDatabase();
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => ensureDatabase(DATABASE_URL, name)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await adminQuery('SELECT datname FROM pg_database WHERE datname = $1', [name])).toHaveLength(1);
  });

  it('when the name is not a plain lower-case identifier, then it is refused before reaching the server', async () => {
    await expect(ensureDatabase(DATABASE_URL, 'Bad"; DROP DATABASE postgres; --')).rejects.toThrow(/bad database name/);
    await expect(ensureDatabase(DATABASE_URL, '1starts_with_digit')).rejects.toThrow(/bad database name/);
  });
});

describe('migrate', () => {
  it('when run on a fresh database, then the SQL files apply in name order, and a second run applies nothing', async () => {
    const fresh = freshDatabase();
    await ensureDatabase(DATABASE_URL, fresh.name);
    const folder = await migrationsFolder(threeMigrations);
    const db = fresh.open();

    expect(await migrate(db, folder)).toEqual([...PLATFORM, '0001_users', '0002_user_birthdays', '0010_sessions']);
    expect(await appliedMigrations(db)).toEqual([...PLATFORM, '0001_users', '0002_user_birthdays', '0010_sessions']);
    expect(await migrate(db, folder)).toEqual([]);
    expect(await appliedMigrations(db)).toEqual([...PLATFORM, '0001_users', '0002_user_birthdays', '0010_sessions']);

    // The multi-statement file ran whole: the index exists.
    const { rows } = await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE tablename = 'sessions'`.execute(db);
    expect(rows.map((r) => r.indexname).sort()).toEqual(['sessions_pkey', 'sessions_user']);
  });

  it('when a new file is added later, then only it is applied', async () => {
    const fresh = freshDatabase();
    await ensureDatabase(DATABASE_URL, fresh.name);
    const folder = await migrationsFolder(threeMigrations);
    const db = fresh.open();
    await migrate(db, folder);
    await writeFile(join(folder, '0011_guilds.sql'), 'CREATE TABLE guilds (id bigint PRIMARY KEY);');
    expect(await migrate(db, folder)).toEqual(['0011_guilds']);
    expect(await appliedMigrations(db)).toHaveLength(PLATFORM.length + 4);
  });

  it('when a migration fails, then migrate rejects, nothing of that run is kept, and a fixed file applies next time', async () => {
    const fresh = freshDatabase();
    await ensureDatabase(DATABASE_URL, fresh.name);
    const folder = await migrationsFolder({
      '0001_a.sql': 'CREATE TABLE a (id int);',
      '0002_b.sql': 'CREATE TABLE b (id int REFERENCES missing_table (id));',
    });
    const db = fresh.open();
    await expect(migrate(db, folder)).rejects.toThrow(/missing_table/);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_tables WHERE tablename IN ('a', 'b')`.execute(db);
    expect(rows[0]!.n).toBe(0);

    await writeFile(join(folder, '0002_b.sql'), 'CREATE TABLE b (id int);');
    expect(await migrate(db, folder)).toEqual([...PLATFORM, '0001_a', '0002_b']);
  });

  it('when 5 instances migrate the same fresh database at once, then every migration applies exactly once', async () => {
    const fresh = freshDatabase();
    await ensureDatabase(DATABASE_URL, fresh.name);
    const folder = await migrationsFolder(threeMigrations);
    const replicas = Array.from({ length: 5 }, () => fresh.open());

    const results = await Promise.allSettled(replicas.map((db) => migrate(db, folder)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const applied = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    expect(applied.sort()).toEqual([...PLATFORM, '0001_users', '0002_user_birthdays', '0010_sessions']);
    expect(await appliedMigrations(replicas[0]!)).toEqual([...PLATFORM, '0001_users', '0002_user_birthdays', '0010_sessions']);
  });
  it('when the database was migrated before a platform migration existed, then that one is applied next time', async () => {
    const fresh = freshDatabase();
    await ensureDatabase(DATABASE_URL, fresh.name);
    const folder = await migrationsFolder(threeMigrations);
    const db = fresh.open();
    await migrate(db, folder);
    // As a database of a release before the outbox: its own migrations applied, the platform's not.
    await sql`DROP TABLE outbox`.execute(db);
    await sql`DELETE FROM kysely_migration WHERE name LIKE '0000_platform_%'`.execute(db);

    expect(await migrate(db, folder)).toEqual(PLATFORM);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM outbox`.execute(db);
    expect(rows[0]!.n).toBe(0);
    // Vacuumed after every thousand dead rows, not when a fifth of the table is dead.
    const options = await sql<{ reloptions: string[] }>`SELECT reloptions FROM pg_class WHERE relname = 'outbox'`.execute(db);
    expect(options.rows[0]!.reloptions).toEqual(
      expect.arrayContaining(['autovacuum_vacuum_scale_factor=0', 'autovacuum_vacuum_threshold=1000']),
    );
  });

  it("when a service migration takes a platform migration's name, then migrate refuses and applies nothing", async () => {
    const fresh = freshDatabase();
    await ensureDatabase(DATABASE_URL, fresh.name);
    const db = fresh.open();
    const folder = await migrationsFolder({ '0000_platform_outbox.sql': 'CREATE TABLE outbox (id int);' });
    await expect(migrate(db, folder)).rejects.toThrow(/0000_platform_outbox exists in more than one folder/);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'outbox'`.execute(db);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('createDatabase', () => {
  it('when the server ends an idle pooled connection, then the process carries on and the next query reconnects', async () => {
    const fresh = freshDatabase();
    await ensureDatabase(DATABASE_URL, fresh.name);
    const lines: { level: string; msg: string }[] = [];
    const logger = createLogger('db-test', 'info', {
      write: (line: string) => void lines.push(JSON.parse(line) as { level: string; msg: string }),
    });
    const db = createDatabase({ url: fresh.url, maxConnections: 1, logger });
    fresh.track(db);
    const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db);
    // As a server restart, failover or idle timeout would: the pool holds this connection idle.
    await adminQuery('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await expect.poll(() => lines.map((l) => [l.level, l.msg])).toContainEqual(['warn', 'idle database connection lost']);
    const after = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db);
    expect(after.rows[0]!.pid).not.toBe(rows[0]!.pid);
  });
  it('when the server ends a connection in the middle of a transaction, then that transaction fails and the process carries on', async () => {
    const fresh = freshDatabase();
    await ensureDatabase(DATABASE_URL, fresh.name);
    const db = createDatabase({ url: fresh.url, maxConnections: 1 });
    fresh.track(db);
    const failed = db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
      await adminQuery('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await sql`SELECT 1`.execute(trx);
    });
    await expect(failed).rejects.toThrow();
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(db);
    expect(rows).toEqual([{ one: 1 }]);
  });
});

describe('openServiceDatabase', () => {
  interface Schema {
    events: { id: string; day: string; attendees: string };
  }
  const files = {
    '0001_events.sql': 'CREATE TABLE events (id bigint PRIMARY KEY, day date NOT NULL, attendees bigint NOT NULL);',
  };

  it('when opened for a new service, then the database is created, migrated and ready to use', async () => {
    const fresh = freshDatabase();
    const db = await openServiceDatabase<Schema>({
      adminUrl: DATABASE_URL,
      name: fresh.name,
      migrationsFolder: await migrationsFolder(files),
    });
    fresh.track(db as Kysely<unknown>);
    expect(await databaseExists(fresh.name)).toBe(true);
    expect(await appliedMigrations(db as Kysely<unknown>)).toEqual([...PLATFORM, '0001_events']);
    await db.insertInto('events').values({ id: '1', day: '2024-02-29', attendees: '3' }).execute();
    expect(await db.selectFrom('events').selectAll().execute()).toHaveLength(1);
  });

  it('when 3 replicas open the same new service database at once, then all are usable and it is migrated once', async () => {
    const fresh = freshDatabase();
    const folder = await migrationsFolder(files);
    const dbs = await Promise.all(
      Array.from({ length: 3 }, () => openServiceDatabase<Schema>({ adminUrl: DATABASE_URL, name: fresh.name, migrationsFolder: folder })),
    );
    dbs.forEach((db) => fresh.track(db as Kysely<unknown>));
    await Promise.all(
      dbs.map((db, i) =>
        db
          .insertInto('events')
          .values({ id: String(i), day: '2024-01-01', attendees: '0' })
          .execute(),
      ),
    );
    expect(await dbs[0]!.selectFrom('events').select('id').orderBy('id').execute()).toEqual([{ id: '0' }, { id: '1' }, { id: '2' }]);
    expect(await appliedMigrations(dbs[0] as Kysely<unknown>)).toEqual([...PLATFORM, '0001_events']);
  });

  it('when DATE and BIGINT columns are read, then they come back as exact strings', async () => {
    const fresh = freshDatabase();
    const db = await openServiceDatabase<Schema>({
      adminUrl: DATABASE_URL,
      name: fresh.name,
      migrationsFolder: await migrationsFolder(files),
    });
    fresh.track(db as Kysely<unknown>);
    // 2^63 - 1 does not fit a JS number; a date must not shift with the process's time zone.
    await db.insertInto('events').values({ id: '9223372036854775807', day: '1999-12-31', attendees: '9007199254740993' }).execute();
    const row = await db.selectFrom('events').selectAll().executeTakeFirstOrThrow();
    expect(row).toEqual({ id: '9223372036854775807', day: '1999-12-31', attendees: '9007199254740993' });
    expect(typeof row.day).toBe('string');
  });
});
