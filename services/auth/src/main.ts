import { onShutdown } from '@kith/platform';
import { startAuth } from './app.js';
import { loadAuthConfig } from './config.js';

const config = loadAuthConfig();
const auth = await startAuth(config);
onShutdown(auth.logger, auth.closers);
