import { onShutdown } from '@kith/platform';
import { startBilling } from './app.js';
import { loadBillingConfig } from './config.js';

const billing = await startBilling(loadBillingConfig());
onShutdown(billing.logger, billing.closers);
