import { onShutdown } from '@kith/platform';
import { startGateway } from './app.js';
import { loadGatewayConfig } from './config.js';

const gateway = await startGateway(loadGatewayConfig());
onShutdown(gateway.logger, gateway.closers);
