import type { TestProject } from 'vitest/node';
import { resolveTestStores } from './stores.js';

/** vitest globalSetup: finds (or starts) the real servers once and hands their URLs to every test. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { stores, stop } = await resolveTestStores();
  project.provide('stores', stores);
  return stop;
}
