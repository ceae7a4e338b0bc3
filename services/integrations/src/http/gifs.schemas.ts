import { z } from 'zod';
import { lengthString } from '@kith/platform';
import { providerNamed, type GifProviderName } from '../domain/gifs/gif.types.js';
import { normalizeLocale } from '../domain/gifs/locale.js';

/** `provider`: the real names and the spec's neutral ones; absent is the default, Tenor. */
const provider = z
  .string()
  .optional()
  .transform((value, ctx): GifProviderName => {
    if (value === undefined) return 'tenor';
    const named = providerNamed(value);
    if (named) return named;
    ctx.addIssue({
      code: 'custom',
      params: { code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (tenor, giphy, klipy).' },
      message: 'unknown provider',
    });
    return z.NEVER;
  });

const locale = z.string().optional().transform(normalizeLocale);

/** An integer in a range, given as query text. */
const limit = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).optional().default(fallback);

/** Search terms: the platform's clients send what the user typed. */
const q = lengthString(1, 256);

export const trendingSearchQuery = z.object({ provider, limit: limit(1, 50, 5), locale });
export const suggestQuery = z.object({ provider, q, limit: limit(1, 50, 20), locale });
export const searchQuery = z.object({ provider, q, limit: limit(20, 500, 100), locale, media_format: z.string().optional() });
export const trendingQuery = z.object({ provider, locale, media_format: z.string().optional() });
export const trendingGifsQuery = z.object({ provider, limit: limit(20, 500, 100), locale, media_format: z.string().optional() });
export const providerSearchQuery = z.object({ q });
export const selectBody = z.object({
  id: lengthString(1, 256),
  q: z.string().max(256),
  provider,
  locale,
});
