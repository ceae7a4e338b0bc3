// The benchmarks' own databases on this machine's PostgreSQL: named <prefix>_<service>, dropped
// before a run so every run starts empty.
import pg from 'pg';

export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** BENCH_DB_PREFIX, or the fallback; it is spliced into SQL and database names, so only [a-z0-9_]. */
export function dbPrefix(fallback) {
  const prefix = process.env.BENCH_DB_PREFIX || fallback;
  if (!/^[a-z][a-z0-9_]*$/.test(prefix)) throw new Error('BENCH_DB_PREFIX: lowercase letters, digits and _ only');
  return prefix;
}

/** DATABASE_URL pointing at another database of the same server. */
export function dbUrl(name) {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** DROP DATABASE … WITH (FORCE) for each name, through one admin connection. */
export async function dropDatabases(names) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
