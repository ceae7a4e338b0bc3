import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configShape } from '@kith/platform';
import { configSchemaOf } from './deploy/settings.mjs';
import { POSTGRES_CONNECTION_BUDGET, POSTGRES_STARTUP_RESERVE, processes, withPostgresShares } from './processes.mjs';

/** The Redis key prefixes of a stack started with `dbPrefix` (every key a process writes starts with its own). */
const redisPrefixes = (dbPrefix: string) => processes(0, dbPrefix).map((p: { env: Record<string, string> }) => p.env.REDIS_PREFIX!);

describe('stacks sharing one Redis', () => {
  // A hand-started stack (kith), the end-to-end system (kith_e2e…), a second checkout's, a traced copy.
  const stacks = ['kith', 'kith_e2e', 'kith_e2e_h1', 'kith_e2e_h1_traced', 'kith_h1'];

  it('when two stacks run with different database prefixes, then no key prefix of one starts a key prefix of the other', () => {
    for (const a of stacks)
      for (const b of stacks) {
        if (a === b) continue;
        for (const pa of redisPrefixes(a)) for (const pb of redisPrefixes(b)) expect(pb.startsWith(pa), `${pa} / ${pb}`).toBe(false);
      }
  });

  it('when one stack runs, then each of its processes has a key prefix of its own under the stack’s', () => {
    const prefixes = redisPrefixes('kith_e2e');
    expect(prefixes.every((p: string) => p.startsWith('kith_e2e:'))).toBe(true);
    for (const pa of prefixes) for (const pb of prefixes) if (pa !== pb) expect(pb.startsWith(pa), `${pa} / ${pb}`).toBe(false);
  });
});

describe('the PostgreSQL connection budget', () => {
  const shareOf = (p: { env: Record<string, string> }) => Number(p.env.DB_CONNECTIONS ?? 0);
  const total = (list: { env: Record<string, string> }[]) => list.reduce((sum, p) => sum + shareOf(p), 0);

  it('when the stack starts, then the processes’ shares and the startup reserve fit a third of PostgreSQL’s default 100', () => {
    expect(POSTGRES_CONNECTION_BUDGET).toBe(33);
    expect(total(processes()) + POSTGRES_STARTUP_RESERVE).toBeLessThanOrEqual(33);
  });

  it('when a process’s config opens a database (DATABASE_URL), then it has a share, and only then', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    // A development stand-in shares a folder (and so a config module) with a service: it opens no database.
    for (const p of processes().filter((p) => p.devOnly)) expect(shareOf(p), p.name).toBe(0);
    for (const p of processes().filter((p) => !p.devOnly)) {
      const keys = Object.keys(configShape(await configSchemaOf(root, p.dir)));
      expect(shareOf(p) >= 2, p.name).toBe(keys.includes('DATABASE_URL'));
      if (keys.includes('DATABASE_URL')) expect(keys, p.name).toContain('DB_CONNECTIONS');
    }
  });

  it('when new services join without declaring anything, then each gets a share and the stack still fits', () => {
    const grown = withPostgresShares([
      ...processes().map(({ env, ...p }) => ({
        ...p,
        env: Object.fromEntries(Object.entries(env).filter(([k]) => k !== 'DB_CONNECTIONS')),
      })),
      ...['invites', 'billing', 'webhooks'].map((name) => ({ name, env: {} as Record<string, string> })),
    ]);
    for (const name of ['invites', 'billing', 'webhooks']) expect(shareOf(grown.find((p) => p.name === name)!)).toBeGreaterThanOrEqual(2);
    expect(total(grown) + POSTGRES_STARTUP_RESERVE).toBeLessThanOrEqual(33);
  });

  it('when the budget cannot give every process two connections, then the list refuses to be made', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ name: `s${i}`, env: {} as Record<string, string> }));
    expect(() => withPostgresShares(many)).toThrow(/cannot give/);
  });
});
