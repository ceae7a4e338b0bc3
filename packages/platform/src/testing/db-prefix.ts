import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ENV_KEY = 'KITH_TEST_DB_PREFIX';

/**
 * The database prefix of this test run: `<prefix>[_<suffix>]`. Every run gets its own (set by the
 * global setup), so a run never meets databases migrated by another branch or an earlier run —
 * a fixed name such as `kith_test_auth` broke every run on a machine where another checkout had
 * added a migration ("previously executed migration … is missing"). Set KITH_TEST_DB_PREFIX to
 * reuse one on purpose.
 */
export function testDbPrefix(suffix?: string): string {
  const base = process.env[ENV_KEY] ?? 'kith_test';
  return suffix ? `${base}_${suffix}` : base;
}

/**
 * For the global setup: makes this run's prefix when none is set (workers inherit it through the
 * environment) and returns a teardown that drops the databases the run made under it.
 */
export function claimTestDbPrefix(adminUrl: string): () => Promise<void> {
  if (process.env[ENV_KEY]) return async () => undefined;
  const prefix = `kith_t${randomBytes(4).toString('hex')}`;
  process.env[ENV_KEY] = prefix;
  return () => dropDatabases(adminUrl, prefix);
}

async function dropDatabases(adminUrl: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1 || '\\_%'`, [prefix]);
    for (const { datname } of rows) {
      // Identifiers cannot be parameters; the name comes from the catalogue and our own prefix.
      await client.query(`DROP DATABASE IF EXISTS "${datname.replace(/"/g, '""')}" WITH (FORCE)`).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}
