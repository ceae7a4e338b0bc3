import { z } from 'zod';
import { baseConfig, configKeys, loadConfig } from '@kith/platform';

export const devGatewayConfigSchema = z.object({
  ...baseConfig,
  HOST: z.string().default('127.0.0.1'),
  PAYMENT_GATEWAY_PORT: configKeys.port.default(8113),
  /** Where customers reach the gateway's authentication page (its redirect URLs are built on it). */
  PAYMENT_GATEWAY_PUBLIC_URL: configKeys.url(['http:', 'https:']).optional(),
  /** The key billing presents; unset, any Stripe test key (`sk_test_…`) is accepted. */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
});

export type DevGatewayConfig = z.output<typeof devGatewayConfigSchema>;

export const loadDevGatewayConfig = (env?: Record<string, string | undefined>): DevGatewayConfig => loadConfig(devGatewayConfigSchema, env);
