import { fileURLToPath } from 'node:url';
import { sql, startService, type Logger, type RunningService } from '@kith/platform';
import type { BillingConfig } from './config.js';
import { CatalogueService } from './domain/catalogue.service.js';
import { PaymentSourcesService } from './domain/payment-sources.service.js';
import { systemClock, type Clock } from './domain/ports.js';
import { PurchaseService } from './domain/purchase.service.js';
import { SubscriptionsService } from './domain/subscriptions.service.js';
import { paymentSourceRoutes } from './http/payment-sources.routes.js';
import { storeRoutes } from './http/store.routes.js';
import { subscriptionRoutes } from './http/subscriptions.routes.js';
import { StripeAdapter } from './payments/stripe.adapter.js';
import { PgCatalogueStore } from './store/catalogue.store.js';
import type { BillingDatabase } from './store/schema.js';
import { PgPaymentSourceStore } from './store/sources.store.js';
import { PgSubscriptionStore } from './store/subscriptions.store.js';

export const SERVICE_NAME = 'billing';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningBilling = RunningService;

/** Builds the billing service (catalogue, payment sources, subscriptions, boost slots) and starts its servers. */
export function startBilling(config: BillingConfig, logger?: Logger, clock: Clock = systemClock): Promise<RunningBilling> {
  return startService<BillingDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: ({ db, outbox, ids: snowflakes }) => {
      const ids = { next: () => snowflakes.next() };
      const gateway = new StripeAdapter({
        baseUrl: config.STRIPE_API_URL,
        secretKey: config.STRIPE_SECRET_KEY,
        timeoutMs: config.PAYMENT_GATEWAY_TIMEOUT_MS,
        maxNetworkRetries: config.PAYMENT_GATEWAY_RETRIES,
      });
      const catalogueStore = new PgCatalogueStore(db);
      const subscriptionStore = new PgSubscriptionStore(db, outbox);
      const sources = new PaymentSourcesService(new PgPaymentSourceStore(db, outbox), gateway, ids);
      const purchases = new PurchaseService(catalogueStore, subscriptionStore, sources, gateway, ids, clock, {
        leaseMs: config.PURCHASE_LEASE_MS,
        // A copy waits as long as the first attempt may take at the gateway, with its retries.
        waitMs: config.PAYMENT_GATEWAY_TIMEOUT_MS * (config.PAYMENT_GATEWAY_RETRIES + 1) + 5_000,
        pollMs: 50,
      });
      const subscriptions = new SubscriptionsService(subscriptionStore);
      const sourceInUse = async (userId: string, sourceId: string) => {
        const { rows } = await sql`SELECT 1 FROM subscriptions WHERE user_id = ${userId} AND payment_source_id = ${sourceId}
          AND status NOT IN (3, 4) LIMIT 1`.execute(db);
        return rows.length > 0;
      };
      return {
        routes: (app) => {
          storeRoutes(app, new CatalogueService(catalogueStore));
          paymentSourceRoutes(app, sources, sourceInUse);
          subscriptionRoutes(app, subscriptions, purchases);
        },
      };
    },
  });
}
