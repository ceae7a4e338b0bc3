import { describe, expect, it } from 'vitest';
import type { GifProviderName, GifQueryOptions, ProviderGif } from './gif.types.js';
import { GifsService, mergeTerms } from './gifs.service.js';
import type { AnswerCache, GifProvider, SelectionLog } from './ports.js';

const gif = (id: string): ProviderGif => ({
  id,
  title: id,
  url: `p/${id}`,
  preview: '',
  renditions: { gif: { url: `${id}.gif`, width: 1, height: 1 } },
});

class FakeProvider implements GifProvider {
  readonly maxResults = 50;
  readonly asked: { what: string; options?: GifQueryOptions }[] = [];
  shareFails = false;
  constructor(readonly name: GifProviderName) {}
  async search(_q: string, options: GifQueryOptions) {
    this.asked.push({ what: 'search', options });
    return Array.from({ length: options.limit }, (_, i) => gif(String(i)));
  }
  async trending(options: GifQueryOptions) {
    this.asked.push({ what: 'trending', options });
    return [gif('t1'), gif('t2')];
  }
  async categories() {
    return [{ name: 'cats', src: 'c.gif' }];
  }
  async trendingTerms() {
    return ['Cats', 'dogs', 'zebra'];
  }
  async suggestions() {
    return ['a', 'b', 'c'];
  }
  async registerShare() {
    this.asked.push({ what: 'share' });
    if (this.shareFails) throw new Error('down');
  }
}

/** A cache that only counts loads: every call loads. */
class PassThroughCache implements AnswerCache {
  keys: string[] = [];
  getOrLoad<T>(key: string, _ttl: number, load: () => Promise<T>): Promise<T> {
    this.keys.push(key);
    return load();
  }
}

class MemorySelections implements SelectionLog {
  counts = new Map<string, Set<string>>();
  async record(_p: GifProviderName, _l: string, term: string, userId: string) {
    const set = this.counts.get(term) ?? new Set();
    this.counts.set(term, set);
    const fresh = !set.has(userId);
    set.add(userId);
    return fresh;
  }
  async top(_p: GifProviderName, _l: string, limit: number, min: number) {
    return [...this.counts]
      .filter(([, s]) => s.size >= min)
      .map(([t]) => t)
      .slice(0, limit);
  }
}

const settings = { searchTtlSeconds: 60, trendingTtlSeconds: 60, trendingMinSelections: 1 };

function service() {
  const tenor = new FakeProvider('tenor');
  const cache = new PassThroughCache();
  const selections = new MemorySelections();
  const failures: string[] = [];
  const gifs = new GifsService([tenor, new FakeProvider('giphy'), new FakeProvider('klipy')], cache, selections, settings, (p) =>
    failures.push(p),
  );
  return { gifs, tenor, cache, selections, failures };
}

describe('GifsService', () => {
  it('when more is asked than the provider gives at once, then one request for its maximum, and fewer come back', async () => {
    const { gifs, tenor } = service();
    const out = await gifs.search('tenor', 'cat', 500, 'en-US', 'gif');
    expect(out).toHaveLength(50);
    expect(tenor.asked).toEqual([{ what: 'search', options: { locale: 'en-US', limit: 50 } }]);
  });

  it('when the query text differs only after hashing, then the cache keys differ and carry no client text', async () => {
    const { gifs, cache } = service();
    await gifs.search('tenor', 'cat:*', 20, 'en-US', 'gif');
    await gifs.search('tenor', 'cat:?', 20, 'en-US', 'gif');
    expect(new Set(cache.keys).size).toBe(2);
    expect(cache.keys.join()).not.toContain('cat');
  });

  it('when trending terms are asked, then terms picked here come first and repeats of them are dropped', async () => {
    const { gifs } = service();
    await gifs.select('u1', 'tenor', '1', '  CATS ', 'en-US');
    expect(await gifs.trendingTerms('tenor', 3, 'en-US')).toEqual(['cats', 'dogs', 'zebra']);
  });

  it('when a share cannot be registered with the provider, then the selection still succeeds and the failure is reported', async () => {
    const { gifs, tenor, failures } = service();
    tenor.shareFails = true;
    await expect(gifs.select('u1', 'tenor', '1', 'x', 'en-US')).resolves.toBeUndefined();
    await new Promise((r) => setImmediate(r));
    expect(failures).toEqual(['tenor']);
  });

  it('when trending categories are asked, then one placeholder GIF comes with them', async () => {
    const { gifs } = service();
    const out = await gifs.trendingCategories('giphy', 'en-US', 'gif');
    expect(out.categories).toEqual([{ name: 'cats', src: 'c.gif' }]);
    expect(out.gifs.map((g) => g.id)).toEqual(['t1']);
  });

  it('when terms are merged, then case and spacing do not make a second entry', () => {
    expect(mergeTerms(['Dog  days'], ['dog days', 'cat', ''], 5)).toEqual(['Dog  days', 'cat']);
  });
});
