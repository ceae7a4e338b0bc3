import { describe, expect, it } from 'vitest';
import { ShortCache } from './short.cache.js';

describe('ShortCache', () => {
  it('when a key is asked again within the TTL, then the first load answers; after it, a new load', async () => {
    let now = 0;
    let loads = 0;
    const cache = new ShortCache<number>(1000, 10, () => now);
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    now = 999;
    expect(await cache.get('a', load)).toBe(1);
    now = 1000;
    expect(await cache.get('a', load)).toBe(2);
  });

  it('when a load fails, then it is not kept; with no TTL nothing is kept; the oldest entry goes past the cap', async () => {
    const cache = new ShortCache<number>(1000, 2, () => 0);
    await expect(cache.get('x', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('x', async () => 7)).toBe(7);
    await cache.get('y', async () => 1);
    await cache.get('z', async () => 1);
    expect(await cache.get('x', async () => 8)).toBe(8);
    let loads = 0;
    const none = new ShortCache<number>(0);
    await none.get('k', async () => ++loads);
    await none.get('k', async () => ++loads);
    expect(loads).toBe(2);
  });
});
