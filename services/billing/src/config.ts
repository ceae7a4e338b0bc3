import { z } from 'zod';
import { configKeys, loadConfig, neededInProduction, serviceConfig } from '@kith/platform';

export const billingConfigSchema = z.object({
  ...serviceConfig,
  HTTP_PORT: serviceConfig.HTTP_PORT.default(8106),
  GRPC_PORT: serviceConfig.GRPC_PORT.default(50056),
  REDIS_PREFIX: z.string().default('kith:billing:'),
  AUTH_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  GUILDS_GRPC_ADDR: z.string().default('127.0.0.1:50054'),

  /**
   * Stripe's API. The defaults are the local gateway `npm start` runs on 8113 (Stripe's API over
   * Stripe's test cards); production sets `https://api.stripe.com` and a live secret key.
   */
  STRIPE_API_URL: neededInProduction(
    configKeys.url(['http:', 'https:']).default('http://127.0.0.1:8113'),
    'the default is the local development gateway, which takes no money',
  ),
  STRIPE_SECRET_KEY: neededInProduction(z.string().min(1).default('sk_test_kith_development'), 'the gateway account charges are made on'),
  /** The deadline of one request to the gateway, and how often a lost answer is retried (same idempotency key). */
  PAYMENT_GATEWAY_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(10_000),
  PAYMENT_GATEWAY_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /** How long a purchase's claim on its load_id lasts before another request may take it over. */
  PURCHASE_LEASE_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * How long a request holds a payment it recorded (an upgrade, an invoice paid) while it asks the
   * gateway; after it, a retry or the scheduler asks again with the same key. Unset: the gateway's
   * deadline times its attempts, plus 5 s.
   */
  PAYMENT_LEASE_MS: z.coerce.number().int().positive().optional(),

  /** Renewals: how often the scheduler looks for due subscriptions, and how many per batch. */
  RENEWAL_POLL_MS: z.coerce.number().int().positive().default(5_000),
  RENEWAL_BATCH: z.coerce.number().int().positive().max(1000).default(50),
  /** Boost changes a user may make in a window before the cooldown applies. */
  BOOST_CHANGE_LIMIT: z.coerce.number().int().positive().default(3),
  BOOST_COOLDOWN_DAYS: z.coerce.number().int().positive().default(7),
});

export type BillingConfig = z.output<typeof billingConfigSchema>;

export const loadBillingConfig = (env?: Record<string, string | undefined>): BillingConfig => loadConfig(billingConfigSchema, env);
