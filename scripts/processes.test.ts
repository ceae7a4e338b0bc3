import { describe, expect, it } from 'vitest';
import { processes } from './processes.mjs';

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
