import type { Logger, Redis } from '@kith/platform';
import type { IntegrationsConfig } from './config.js';
import { GifsService } from './domain/gifs/gifs.service.js';
import { GiphyAdapter } from './providers/gifs/giphy.adapter.js';
import { KlipyAdapter } from './providers/gifs/klipy.adapter.js';
import { TenorAdapter } from './providers/gifs/tenor.adapter.js';
import { RedisAnswerCache } from './store/answer-cache.store.js';
import { RedisSelectionLog } from './store/selections.store.js';

/** The three GIF providers' adapters behind one cache, from config. */
export function gifsModule(config: IntegrationsConfig, redis: Redis, logger: Logger): GifsService {
  const http = { timeoutMs: config.PROVIDER_TIMEOUT_MS };
  const providers = [
    new TenorAdapter({ ...http, baseUrl: config.TENOR_API_URL, apiKey: config.TENOR_API_KEY, clientKey: config.TENOR_CLIENT_KEY }),
    new GiphyAdapter({ ...http, baseUrl: config.GIPHY_API_URL, apiKey: config.GIPHY_API_KEY }),
    new KlipyAdapter({
      ...http,
      baseUrl: config.KLIPY_API_URL,
      apiKey: config.KLIPY_API_KEY,
      customerId: 'kith',
      pageBaseUrl: config.KLIPY_PAGE_URL,
    }),
  ];
  // A loader holds its key a little past the provider's deadline.
  const cache = new RedisAnswerCache(redis, { lockMs: config.PROVIDER_TIMEOUT_MS + 1000 });
  return new GifsService(
    providers,
    cache,
    new RedisSelectionLog(redis),
    {
      searchTtlSeconds: config.GIF_SEARCH_TTL_SECONDS,
      trendingTtlSeconds: config.GIF_TRENDING_TTL_SECONDS,
      trendingMinSelections: config.GIF_TRENDING_MIN_SELECTIONS,
    },
    (provider, err) => logger.warn({ provider, err: (err as Error).message }, 'GIF share not registered'),
  );
}
