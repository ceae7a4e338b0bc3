import { createRedis, type Redis } from '@kith/platform';
import { unique } from '@kith/platform/testing';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ProviderError } from '../../src/domain/provider.error.js';
import { RedisAnswerCache } from '../../src/store/answer-cache.store.js';

let a: Redis;
let b: Redis;

beforeAll(() => {
  const prefix = `${unique('kith_test')}:integrations:`;
  // Two connections with one prefix: two replicas of the service.
  a = createRedis(inject('stores').REDIS_URL, prefix);
  b = createRedis(inject('stores').REDIS_URL, prefix);
});
afterAll(async () => {
  await a.quit();
  await b.quit();
});

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('RedisAnswerCache', () => {
  it('when two replicas get one key concurrently 500 times each, then it is loaded once and all see its answer', async () => {
    const one = new RedisAnswerCache(a, { lockMs: 2000 });
    const two = new RedisAnswerCache(b, { lockMs: 2000 });
    let loads = 0;
    const load = () => {
      loads++;
      return later(100, { gifs: ['x'] });
    };
    const answers = await Promise.all([
      ...Array.from({ length: 500 }, () => one.getOrLoad('k1', 60, load)),
      ...Array.from({ length: 500 }, () => two.getOrLoad('k1', 60, load)),
    ]);
    expect(loads).toBe(1);
    expect(answers.every((x) => x.gifs[0] === 'x')).toBe(true);
  });

  it('when the loader fails, then waiting replicas fail too, and for a moment nobody asks again', async () => {
    const one = new RedisAnswerCache(a, { lockMs: 2000, failureTtlMs: 1000, memoMs: 0 });
    const two = new RedisAnswerCache(b, { lockMs: 2000, failureTtlMs: 1000, memoMs: 0 });
    let loads = 0;
    const failing = async () => {
      loads++;
      await later(50, null);
      throw new ProviderError('unavailable', 'down');
    };
    const results = await Promise.allSettled([one.getOrLoad('k2', 60, failing), two.getOrLoad('k2', 60, failing)]);
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof ProviderError)).toBe(true);
    await expect(two.getOrLoad('k2', 60, failing)).rejects.toBeInstanceOf(ProviderError);
    expect(loads).toBe(1);
  });

  it('when the replica holding the lock dies, then another loads once the lock lapses', async () => {
    // A lock left behind by a replica that never finished.
    await a.set('gifs:lock:k3', 'dead', 'PX', 300);
    const two = new RedisAnswerCache(b, { lockMs: 300, pollMs: 20 });
    let loads = 0;
    const value = await two.getOrLoad('k3', 60, async () => {
      loads++;
      return 'fresh';
    });
    expect(value).toBe('fresh');
    expect(loads).toBe(1);
  });

  it('when an answer is stored, then it expires with its TTL', async () => {
    const one = new RedisAnswerCache(a, { lockMs: 1000, memoMs: 0 });
    await one.getOrLoad('k4', 7, async () => 'v');
    const ttl = await a.ttl('gifs:answer:k4');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(7);
  });
});
