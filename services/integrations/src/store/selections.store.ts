import { createHash } from 'node:crypto';
import type { Redis } from '@kith/platform';
import type { GifProviderName } from '../domain/gifs/gif.types.js';
import type { SelectionLog } from '../domain/gifs/ports.js';

const DAY_MS = 86_400_000;
/** A day's counts are read today and tomorrow, then they expire. */
const KEEP_SECONDS = 3 * 86_400;
/** Terms kept per day and locale; the long tail is trimmed on write. */
const MAX_TERMS = 1000;

const day = (ms: number): number => Math.floor(ms / DAY_MS);

/**
 * Selections per day in Redis: a sorted set of terms scored by distinct users (one count per user,
 * term and day, so one account cannot make a term trend), and a marker per user and term.
 */
export class RedisSelectionLog implements SelectionLog {
  constructor(
    private readonly redis: Redis,
    private readonly now: () => number = Date.now,
  ) {}

  private termsKey(provider: GifProviderName, locale: string, d: number): string {
    return `gifs:selected:${provider}:${locale}:${d}`;
  }

  async record(provider: GifProviderName, locale: string, term: string, userId: string): Promise<boolean> {
    const d = day(this.now());
    const marker = `gifs:selector:${provider}:${d}:${userId}:${createHash('sha256').update(term).digest('base64url').slice(0, 22)}`;
    if ((await this.redis.set(marker, '1', 'EX', KEEP_SECONDS, 'NX')) !== 'OK') return false;
    const key = this.termsKey(provider, locale, d);
    await this.redis
      .multi()
      .zincrby(key, 1, term)
      .expire(key, KEEP_SECONDS)
      // Keeps the MAX_TERMS best: the lowest ranks go.
      .zremrangebyrank(key, 0, -(MAX_TERMS + 1))
      .exec();
    return true;
  }

  async top(provider: GifProviderName, locale: string, limit: number, minCount: number): Promise<string[]> {
    const d = day(this.now());
    const [today, yesterday] = await Promise.all(
      [d, d - 1].map((x) =>
        this.redis.zrevrangebyscore(this.termsKey(provider, locale, x), '+inf', 1, 'WITHSCORES', 'LIMIT', 0, limit * 4),
      ),
    );
    const scores = new Map<string, number>();
    for (const list of [today!, yesterday!])
      for (let i = 0; i + 1 < list.length; i += 2) scores.set(list[i]!, (scores.get(list[i]!) ?? 0) + Number(list[i + 1]));
    return [...scores.entries()]
      .filter(([, score]) => score >= minCount)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, limit)
      .map(([term]) => term);
  }
}
