import { onShutdown } from '@kith/platform';
import { startSocial } from './app.js';
import { loadSocialConfig } from './config.js';

const social = await startSocial(loadSocialConfig());
onShutdown(social.logger, social.closers);
