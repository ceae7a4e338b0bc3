import { onShutdown } from '@kith/platform';
import { startWebhooks } from './app.js';
import { loadWebhooksConfig } from './config.js';

const webhooks = await startWebhooks(loadWebhooksConfig());
onShutdown(webhooks.logger, webhooks.closers);
