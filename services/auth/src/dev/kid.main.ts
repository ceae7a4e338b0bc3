import { createLogger, onShutdown } from '@kith/platform';
import { loadDevKidConfig } from './kid.config.js';
import { KidServer } from './kid.server.js';

/*
 * The local age-verification provider `npm start` runs: k-ID's age-verification API, with a page
 * where the user says how the check went, so a newcomer can take a suspended account through age
 * verification without a k-ID product. Never deployed: production sets k-ID's URL and its key.
 */
const config = loadDevKidConfig();
const logger = createLogger('age-verifier', config.LOG_LEVEL);
const server = new KidServer(config.K_ID_API_KEY ? { apiKey: config.K_ID_API_KEY } : {});
const url = await server.listen(config.K_ID_PORT, config.HOST, config.K_ID_PUBLIC_URL);
logger.info({ url }, 'development age verifier listening');
onShutdown(logger, [() => server.close()]);
