import type { GifProviderName, GifQueryOptions, ProviderCategory, ProviderGif } from './gif.types.js';

/**
 * One GIF provider's public HTTP API. Each call is one provider request; `limit` is a suggestion
 * the adapter caps at what one request of that provider returns. Failures are `ProviderError`s (provider.error.ts).
 */
export interface GifProvider {
  readonly name: GifProviderName;
  /** The most results one request of this provider returns. */
  readonly maxResults: number;
  search(q: string, options: GifQueryOptions): Promise<ProviderGif[]>;
  trending(options: GifQueryOptions): Promise<ProviderGif[]>;
  /** Trending categories, each with a preview GIF URL (in the provider's GIF rendition). */
  categories(locale: string): Promise<ProviderCategory[]>;
  trendingTerms(options: GifQueryOptions): Promise<string[]>;
  suggestions(q: string, options: GifQueryOptions): Promise<string[]>;
  /** Tells the provider a GIF was shared (providers that take it); resolves once told. */
  registerShare(id: string, q: string, locale: string): Promise<void>;
}

/**
 * Cached provider answers shared by every replica. Concurrent loads of one key, in this process
 * and in others, make one provider request: the rest wait for its answer.
 */
export interface AnswerCache {
  getOrLoad<T>(key: string, ttlSeconds: number, load: () => Promise<T>): Promise<T>;
}

/** Selected GIFs, counted per search term, so the terms people pick GIFs from trend here too. */
export interface SelectionLog {
  /** Counts `term` once per user per day; false when this user already counted it today. */
  record(provider: GifProviderName, locale: string, term: string, userId: string): Promise<boolean>;
  /** The most selected terms of the last two days with at least `minCount` distinct users. */
  top(provider: GifProviderName, locale: string, limit: number, minCount: number): Promise<string[]>;
}
