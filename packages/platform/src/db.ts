import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import type { Logger } from './logger.js';

export { sql, type Kysely } from 'kysely';

/** The URL of database `name` on the same server as the admin URL. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates the database if absent; concurrent replicas racing to create it are fine. */
export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return;
    await client.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  } catch (err) {
    // 42P04 duplicate_database; 23505 when two CREATEs race on pg_database's unique index.
    const code = (err as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw err;
  } finally {
    await client.end();
  }
}

export interface DatabaseOptions {
  url: string;
  maxConnections?: number;
  logger?: Logger;
}

/** DATE columns stay 'YYYY-MM-DD' strings: a calendar date has no time zone to shift it. */
pg.types.setTypeParser(1082, (value: string) => value);

/**
 * How long a query waits for a pooled connection (all busy) or a new one (server slow to accept)
 * before it fails as the store being unavailable (a 503 with Retry-After, errors.ts), well before
 * the edge would give up on the request (UPSTREAM_HEADERS_TIMEOUT_MS, 15 s).
 */
export const CONNECTION_WAIT_MS = 10_000;

export function createDatabase<DB>({ url, maxConnections = 10, logger }: DatabaseOptions): Kysely<DB> {
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECTION_WAIT_MS,
  });
  // An idle connection the server ends (restart, failover, timeout) is emitted as 'error' on the
  // pool, which crashes the process when nothing listens. The pool has already dropped it.
  pool.on('error', (err) => logger?.warn({ err: err.message }, 'idle database connection lost'));
  // The pool listens only while a connection is idle. One lost while checked out (inside a
  // transaction) fails its query, then emits 'error' with no listener, which would crash too.
  pool.on('connect', (client) => client.on('error', (err) => logger?.warn({ err: err.message }, 'database connection lost while in use')));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

const pools = new WeakMap<object, pg.Pool>();

/**
 * The pool under a database `createDatabase` opened, for the rare caller that must send several
 * statements in one round trip (the outbox relay), which Kysely cannot: it keeps one result only.
 */
export function databasePool<DB>(db: Kysely<DB>): pg.Pool | undefined {
  return pools.get(db);
}

/**
 * The platform's own tables every service database has (the outbox). Named `0000_platform_*`, they
 * sort before any service's migrations and are applied in the same run.
 */
export const PLATFORM_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/**
 * Migrations are plain SQL files, `NNNN_name.sql`, from several folders (the platform's, then the
 * service's), applied in name order, each in a transaction.
 */
class SqlFileMigrationProvider implements MigrationProvider {
  constructor(private readonly folders: string[]) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const folder of this.folders) {
      const files = (await readdir(folder)).filter((f) => f.endsWith('.sql')).sort();
      for (const file of files) {
        const name = file.replace(/\.sql$/, '');
        if (migrations[name]) throw new Error(`migration ${name} exists in more than one folder`);
        const text = await readFile(join(folder, file), 'utf8');
        migrations[name] = { up: async (db) => void (await sql.raw(text).execute(db)) };
      }
    }
    return migrations;
  }
}

/** An arbitrary constant that names "migrations" among this database's advisory locks. */
const MIGRATION_LOCK_KEY = 7_340_417;

/**
 * Applies pending migrations: the platform's and the service's own (`folder`). Replicas starting
 * together serialise on a session advisory lock, so exactly one applies each migration and the
 * others find nothing left to do.
 */
export async function migrate(db: Kysely<unknown>, folder: string, logger?: Logger): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
    try {
      const migrator = new Migrator({
        db: conn,
        provider: new SqlFileMigrationProvider([PLATFORM_MIGRATIONS, folder]),
        // A platform migration added later sorts before service migrations already applied.
        allowUnorderedMigrations: true,
      });
      const { error, results = [] } = await migrator.migrateToLatest();
      const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
      for (const failed of results.filter((r) => r.status === 'Error'))
        logger?.error({ migration: failed.migrationName }, 'migration failed');
      if (error) throw error instanceof Error ? error : new Error(String(error));
      if (applied.length) logger?.info({ applied }, 'migrations applied');
      return applied;
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn);
    }
  });
}

/** Ensures the service's database exists, opens it and brings its schema up to date. */
export async function openServiceDatabase<DB>(opts: {
  adminUrl: string;
  name: string;
  migrationsFolder: string;
  logger?: Logger;
  maxConnections?: number;
}): Promise<Kysely<DB>> {
  await ensureDatabase(opts.adminUrl, opts.name);
  const db = createDatabase<DB>({ url: databaseUrl(opts.adminUrl, opts.name), maxConnections: opts.maxConnections, logger: opts.logger });
  await migrate(db as Kysely<unknown>, opts.migrationsFolder, opts.logger);
  return db;
}
