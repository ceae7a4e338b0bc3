import { createLogger, onShutdown } from '@kith/platform';
import { loadDevGatewayConfig } from './stripe.config.js';
import { StripeServer } from './stripe.server.js';

/*
 * The local payment gateway `npm start` runs: Stripe's API over Stripe's test cards, so a newcomer
 * can add a card and subscribe without keys. Never deployed: production sets Stripe's real URL and key.
 */
const config = loadDevGatewayConfig();
const logger = createLogger('payment-gateway', config.LOG_LEVEL);
const server = new StripeServer(config.STRIPE_SECRET_KEY ? { secretKey: config.STRIPE_SECRET_KEY } : {});
const url = await server.listen(config.PAYMENT_GATEWAY_PORT, config.HOST, config.PAYMENT_GATEWAY_PUBLIC_URL);
logger.info({ url }, 'development payment gateway listening');
onShutdown(logger, [() => server.close()]);
