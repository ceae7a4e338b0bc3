import { fileURLToPath } from 'node:url';
import { createClient, sql, startService, type Logger, type RunningService } from '@kith/platform';
import { AuthService } from '@kith/proto/auth/v1/auth';
import { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { BillingConfig } from './config.js';
import { BoostsService } from './domain/boosts.service.js';
import { CatalogueService } from './domain/catalogue.service.js';
import { ChangesService } from './domain/changes.service.js';
import { Ledger } from './domain/ledger.js';
import { PaymentSourcesService } from './domain/payment-sources.service.js';
import { PerksService } from './domain/perks.service.js';
import { systemClock, type Clock } from './domain/ports.js';
import { PreviewsService } from './domain/previews.service.js';
import { PromotionsService } from './domain/promotions.service.js';
import { PurchaseService } from './domain/purchase.service.js';
import { RenewalsService } from './domain/renewals.service.js';
import { SettlementsService } from './domain/settlements.service.js';
import { SubscriptionsService } from './domain/subscriptions.service.js';
import { GrpcGuildMembership } from './grpc/guild-membership.js';
import { GrpcPerkTargets } from './grpc/perk-targets.js';
import { boostRoutes } from './http/boosts.routes.js';
import { paymentSourceRoutes } from './http/payment-sources.routes.js';
import { storeRoutes } from './http/store.routes.js';
import { subscriptionRoutes } from './http/subscriptions.routes.js';
import { StripeAdapter } from './payments/stripe.adapter.js';
import { RenewalScheduler } from './scheduler/renewal.scheduler.js';
import { PgBoostStore } from './store/boosts.store.js';
import { PgCatalogueStore } from './store/catalogue.store.js';
import { PgEntitlementStore } from './store/entitlements.store.js';
import { PgPerkStore } from './store/perks.store.js';
import type { BillingDatabase } from './store/schema.js';
import { PgPaymentSourceStore } from './store/sources.store.js';
import { PgSubscriptionStore } from './store/subscriptions.store.js';

export const SERVICE_NAME = 'billing';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

export type RunningBilling = RunningService & { scheduler: RenewalScheduler };

/** Builds the billing service (catalogue, payment sources, subscriptions, renewals, boost slots) and starts its servers. */
export async function startBilling(config: BillingConfig, logger?: Logger, clock: Clock = systemClock): Promise<RunningBilling> {
  let scheduler: RenewalScheduler | undefined;
  const running = await startService<BillingDatabase>({
    name: SERVICE_NAME,
    config,
    migrationsFolder: MIGRATIONS,
    ...(logger ? { logger } : {}),
    wire: ({ db, outbox, ids: snowflakes, logger: log }) => {
      const ids = { next: () => snowflakes.next() };
      const auth = createClient(AuthService, config.AUTH_GRPC_ADDR);
      const guilds = createClient(GuildsService, config.GUILDS_GRPC_ADDR);
      const gateway = new StripeAdapter({
        baseUrl: config.STRIPE_API_URL,
        secretKey: config.STRIPE_SECRET_KEY,
        timeoutMs: config.PAYMENT_GATEWAY_TIMEOUT_MS,
        maxNetworkRetries: config.PAYMENT_GATEWAY_RETRIES,
      });
      const catalogue = new PgCatalogueStore(db);
      const entitlements = new PgEntitlementStore(db);
      const store = new PgSubscriptionStore(db, outbox);
      const sources = new PaymentSourcesService(new PgPaymentSourceStore(db, outbox), gateway, ids);
      const ledger = new Ledger(gateway, sources, ids);
      const settlements = new SettlementsService(store, catalogue, ledger, gateway, clock, {
        // An asker holds a payment as long as the gateway may take to answer it, with its retries.
        leaseMs: config.PAYMENT_LEASE_MS ?? config.PAYMENT_GATEWAY_TIMEOUT_MS * (config.PAYMENT_GATEWAY_RETRIES + 1) + 5_000,
        confirmationWindowMs: 86_400_000,
        pollMs: 60_000,
      });
      const changes = new ChangesService(store, catalogue, ledger, settlements, clock);
      const perks = new PerksService(new PgPerkStore(db), new GrpcPerkTargets(auth, guilds), (err, mark) =>
        log.warn({ err, kind: mark.kind, target: mark.target_id }, 'perk push failed; the scheduler retries'),
      );
      const afterChange = () => perks.flush().catch((err: unknown) => log.warn({ err }, 'perk push failed; the scheduler retries'));
      const purchases = new PurchaseService(catalogue, store, sources, gateway, ids, clock, {
        leaseMs: config.PURCHASE_LEASE_MS,
        // A copy waits as long as the first attempt may take at the gateway, with its retries.
        waitMs: config.PAYMENT_GATEWAY_TIMEOUT_MS * (config.PAYMENT_GATEWAY_RETRIES + 1) + 5_000,
        pollMs: 50,
      });
      scheduler = new RenewalScheduler(
        new RenewalsService(store, catalogue, ledger, changes, clock),
        perks,
        settlements,
        purchases,
        {
          pollMs: config.RENEWAL_POLL_MS,
          batch: config.RENEWAL_BATCH,
        },
        log,
      );
      const boosts = new BoostsService(new PgBoostStore(db, outbox), new GrpcGuildMembership(guilds), ids, clock, {
        changeLimit: config.BOOST_CHANGE_LIMIT,
        windowDays: config.BOOST_COOLDOWN_DAYS,
      });
      const sourceInUse = async (userId: string, sourceId: string) => {
        const { rows } = await sql`SELECT 1 FROM subscriptions WHERE user_id = ${userId} AND payment_source_id = ${sourceId}
          AND status NOT IN (3, 4) LIMIT 1`.execute(db);
        return rows.length > 0;
      };
      const usersById = async (userIds: string[]) => {
        const unique = [...new Set(userIds)];
        if (unique.length === 0) return new Map();
        const { users } = await auth.getUsers({ userIds: unique });
        return new Map(users.map((u) => [u.id, u]));
      };
      return {
        routes: (app) => {
          storeRoutes(app, new CatalogueService(catalogue));
          paymentSourceRoutes(app, sources, sourceInUse);
          subscriptionRoutes(app, {
            subscriptions: new SubscriptionsService(store),
            purchases,
            changes,
            previews: new PreviewsService(store, catalogue, sources, entitlements, ids, clock),
            promotions: new PromotionsService(store, catalogue, entitlements, ids, clock),
            afterChange,
          });
          boostRoutes(app, boosts, usersById, afterChange);
        },
        closers: [() => scheduler!.stop(), async () => auth.close(), async () => guilds.close()],
      };
    },
  });
  scheduler!.start();
  return { ...running, scheduler: scheduler! };
}
