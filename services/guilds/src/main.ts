import { onShutdown } from '@kith/platform';
import { startGuilds } from './app.js';
import { loadGuildsConfig } from './config.js';

const guilds = await startGuilds(loadGuildsConfig());
onShutdown(guilds.logger, guilds.closers);
