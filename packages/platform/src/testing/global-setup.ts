import type { TestProject } from 'vitest/node';
import { claimTestDbPrefix } from './db-prefix.js';
import { resolveTestStores } from './stores.js';

/**
 * vitest globalSetup: finds (or starts) the real servers once and hands their URLs to every test;
 * gives the run a database prefix of its own and drops its databases at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { stores, stop } = await resolveTestStores();
  project.provide('stores', stores);
  const dropDatabases = claimTestDbPrefix(stores.DATABASE_URL);
  return async () => {
    await dropDatabases().catch(() => undefined);
    await stop();
  };
}
