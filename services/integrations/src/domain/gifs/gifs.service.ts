import { createHash } from 'node:crypto';
import type { GifCategoryView, GifProviderName, GifView, MediaFormat, ProviderSearchResult } from './gif.types.js';
import { renderGifs, renderProviderResults } from './media-format.js';
import type { AnswerCache, GifProvider, SelectionLog } from './ports.js';

export interface GifsSettings {
  /** How long a search's answer is reused. */
  searchTtlSeconds: number;
  /** How long trending GIFs, categories and terms are reused. */
  trendingTtlSeconds: number;
  /** Distinct users who must pick a GIF from a term before it trends here. */
  trendingMinSelections: number;
}

export interface TrendingCategories {
  categories: GifCategoryView[];
  gifs: GifView[];
}

/** `/integrations/tenor/search` answers up to this many. */
export const PROVIDER_SEARCH_MAX = 10;

/** Keys carry a digest of the free text: bounded in length, and no client text in Redis key names. */
const digest = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/** Search terms counted alike whatever their case and spacing. */
export const normalizeTerm = (q: string): string => q.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * GIF search over the providers: one provider request per distinct question in a TTL, however many
 * ask it at once (the cache's single flight); the answer rendered per request in the asked format.
 */
export class GifsService {
  private readonly providers: Map<GifProviderName, GifProvider>;

  constructor(
    providers: readonly GifProvider[],
    private readonly cache: AnswerCache,
    private readonly selections: SelectionLog,
    private readonly settings: GifsSettings,
    private readonly onShareFailed: (provider: GifProviderName, err: unknown) => void = () => undefined,
  ) {
    this.providers = new Map(providers.map((p) => [p.name, p]));
  }

  private provider(name: GifProviderName): GifProvider {
    const provider = this.providers.get(name);
    if (!provider) throw new Error(`no adapter for GIF provider ${name}`);
    return provider;
  }

  async search(name: GifProviderName, q: string, limit: number, locale: string, format: MediaFormat): Promise<GifView[]> {
    const provider = this.provider(name);
    const max = Math.min(limit, provider.maxResults);
    const key = `search:${name}:${locale}:${max}:${digest(q)}`;
    const gifs = await this.cache.getOrLoad(key, this.settings.searchTtlSeconds, () => provider.search(q, { locale, limit: max }));
    return renderGifs(gifs.slice(0, limit), format);
  }

  /** `/integrations/tenor/search`: the default provider's first results in the GIF rendition. */
  async providerSearch(q: string): Promise<ProviderSearchResult[]> {
    const provider = this.provider('tenor');
    const key = `psearch:tenor:${digest(q)}`;
    const gifs = await this.cache.getOrLoad(key, this.settings.searchTtlSeconds, () =>
      provider.search(q, { locale: 'en-US', limit: PROVIDER_SEARCH_MAX }),
    );
    return renderProviderResults(gifs, PROVIDER_SEARCH_MAX);
  }

  async trendingGifs(name: GifProviderName, limit: number, locale: string, format: MediaFormat): Promise<GifView[]> {
    const provider = this.provider(name);
    const max = Math.min(limit, provider.maxResults);
    const gifs = await this.cache.getOrLoad(`trending:${name}:${locale}:${max}`, this.settings.trendingTtlSeconds, () =>
      provider.trending({ locale, limit: max }),
    );
    return renderGifs(gifs.slice(0, limit), format);
  }

  /** The categories, and one trending GIF the client shows as the "Trending" tile. */
  async trendingCategories(name: GifProviderName, locale: string, format: MediaFormat): Promise<TrendingCategories> {
    const provider = this.provider(name);
    const ttl = this.settings.trendingTtlSeconds;
    const [categories, placeholder] = await Promise.all([
      this.cache.getOrLoad(`categories:${name}:${locale}`, ttl, () => provider.categories(locale)),
      this.cache.getOrLoad(`trending:${name}:${locale}:1`, ttl, () => provider.trending({ locale, limit: 1 })),
    ]);
    return { categories: categories.map((c) => ({ name: c.name, src: c.src })), gifs: renderGifs(placeholder.slice(0, 1), format) };
  }

  /** The terms GIFs are most picked from here, then the provider's own trending terms. */
  async trendingTerms(name: GifProviderName, limit: number, locale: string): Promise<string[]> {
    const provider = this.provider(name);
    const max = Math.min(limit, provider.maxResults);
    const [local, remote] = await Promise.all([
      this.selections.top(name, locale, limit, this.settings.trendingMinSelections),
      this.cache.getOrLoad(`terms:${name}:${locale}:${max}`, this.settings.trendingTtlSeconds, () =>
        provider.trendingTerms({ locale, limit: max }),
      ),
    ]);
    return mergeTerms(local, remote, limit);
  }

  async suggestions(name: GifProviderName, q: string, limit: number, locale: string): Promise<string[]> {
    const provider = this.provider(name);
    const max = Math.min(limit, provider.maxResults);
    const terms = await this.cache.getOrLoad(`suggest:${name}:${locale}:${max}:${digest(q)}`, this.settings.searchTtlSeconds, () =>
      provider.suggestions(q, { locale, limit: max }),
    );
    return terms.slice(0, limit);
  }

  /**
   * Records the pick (it feeds trending terms) and tells the provider in the background: the
   * client's answer never waits on, or fails with, the provider.
   */
  async select(userId: string, name: GifProviderName, id: string, q: string, locale: string): Promise<void> {
    const provider = this.provider(name);
    const term = normalizeTerm(q);
    if (term) await this.selections.record(name, locale, term, userId);
    provider.registerShare(id, q, locale).catch((err: unknown) => this.onShareFailed(name, err));
  }
}

/** Local terms first, then the provider's, each once (compared as normalized), at most `limit`. */
export function mergeTerms(local: readonly string[], remote: readonly string[], limit: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const term of [...local, ...remote]) {
    const key = normalizeTerm(term);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(term);
    if (out.length >= limit) break;
  }
  return out;
}
