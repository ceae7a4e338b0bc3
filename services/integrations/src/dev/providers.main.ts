import { createLogger, onShutdown } from '@kith/platform';
import { GifProvidersServer } from './gif-providers.server.js';
import { loadDevProvidersConfig } from './providers.config.js';
import { StreamingStandIn } from './streaming-providers.js';

/*
 * The local development providers `npm start` runs: GIF providers (Tenor, GIPHY, KLIPY) and
 * streaming platforms, speaking their public APIs over built-in data, so every feature works on a
 * fresh machine without keys. Never deployed to production: there the real providers' URLs are set.
 */
const config = loadDevProvidersConfig();
const logger = createLogger('providers', config.LOG_LEVEL);
const gifs = new GifProvidersServer({ streaming: new StreamingStandIn() });
const gifUrl = await gifs.listen(config.GIF_PROVIDERS_PORT, config.HOST, config.GIF_PROVIDERS_PUBLIC_URL);
logger.info({ gifs: gifUrl }, 'development providers listening');
onShutdown(logger, [() => gifs.close()]);
