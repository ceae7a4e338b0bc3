import { onShutdown } from '@kith/platform';
import { startIntegrations } from './app.js';
import { loadIntegrationsConfig } from './config.js';

const integrations = await startIntegrations(loadIntegrationsConfig());
onShutdown(integrations.logger, integrations.closers);
