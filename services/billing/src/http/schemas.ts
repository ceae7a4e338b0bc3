import { z } from 'zod';
import { snowflakeField } from '@kith/platform';

/** A boolean given as query text, as the platform's clients send it. */
const queryBoolean = z
  .union([z.boolean(), z.enum(['true', 'false', 'True', 'False', '1', '0'])])
  .transform((v) => v === true || v === 'true' || v === 'True' || v === '1')
  .optional();

const currency = z.string().refine((v) => /^[a-z]{3}$/.test(v), { params: { code: 'BASE_TYPE_INVALID', message: 'Invalid currency.' } });

const expectedPrice = z
  .object({ currency, amount: z.number().int().min(0) })
  .nullable()
  .optional();

const item = z.object({ plan_id: snowflakeField, quantity: z.number().int().min(1).max(100).optional().default(1) });
const items = z.array(item).max(10);

const billingAddress = z.object({
  name: z.string().min(1).max(256),
  line_1: z.string().min(1).max(256),
  line_2: z.string().max(256).nullable().optional(),
  city: z.string().min(1).max(256),
  state: z.string().max(256).optional(),
  country: z.string().refine((v) => /^[A-Z]{2}$/.test(v), { params: { code: 'BASE_TYPE_INVALID', message: 'Invalid country code.' } }),
  postal_code: z.string().max(32).optional(),
});

export const listSubscriptionsQuery = z.object({
  include_inactive: queryBoolean,
  limit: z.coerce.number().int().min(1).max(20).optional(),
  exclude_unpaid_statuses: queryBoolean,
  subscription_type: z.coerce.number().int().min(1).max(3).optional(),
  sync_level: z.coerce.number().int().min(0).max(2).optional(),
});

export const createSubscriptionBody = z.object({
  items,
  payment_source_id: snowflakeField.optional(),
  payment_source_token: z.string().max(1024).nullable().optional(),
  return_url: z.string().max(2048).nullable().optional(),
  currency: currency.optional(),
  trial_id: snowflakeField.nullable().optional(),
  expected_invoice_price: expectedPrice,
  expected_renewal_price: expectedPrice,
  purchase_token: z.string().min(1).max(1024),
  gateway_checkout_context: z
    .object({ braintree_device_data: z.string().max(4096).nullable().optional() })
    .nullable()
    .optional(),
  code: z.string().max(256).optional(),
  metadata: z.object({ guild_id: snowflakeField.optional() }).optional(),
  load_id: z.string().min(1).max(256).optional(),
});

export const createPaymentSourceBody = z.object({
  token: z.string().min(1).max(1024),
  payment_gateway: z.literal(1, { error: () => ({ message: 'Value must be one of (1).' }) }),
  billing_address: billingAddress,
  billing_address_token: z.string().max(1024).optional(),
  return_url: z.string().max(2048).optional(),
  bank: z.string().max(256).optional(),
});

export const modifyPaymentSourceBody = z.object({
  billing_address: billingAddress.optional(),
  default: z.boolean().optional(),
  expires_month: z.number().int().min(1).max(12).optional(),
  expires_year: z.number().int().min(2000).max(2100).optional(),
});

export const plansQuery = z.object({
  country_code: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional(),
  payment_source_id: snowflakeField.optional(),
  include_unpublished: queryBoolean,
  revenue_surface: z.coerce.number().int().min(0).max(1).optional(),
});

export const bulkPlansQuery = plansQuery.extend({
  sku_ids: z.union([snowflakeField, z.array(snowflakeField).min(1).max(16)]).transform((v) => (Array.isArray(v) ? v : [v])),
});

export const listingsQuery = z.object({
  application_id: snowflakeField,
  country_code: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional(),
  localize: queryBoolean,
});

export const idParam = snowflakeField;

export const modifySubscriptionBody = z.object({
  items: items.optional(),
  payment_source_id: snowflakeField.optional(),
  payment_source_token: z.string().max(1024).optional(),
  return_url: z.string().max(2048).nullable().optional(),
  currency: currency.optional(),
  status: z.number().int().min(0).max(9).optional(),
  pause_duration: z.number().int().min(1).max(90).optional(),
  expected_invoice_price: expectedPrice,
  expected_renewal_price: expectedPrice,
  purchase_token: z.string().max(1024).optional(),
  gateway_checkout_context: z
    .object({ braintree_device_data: z.string().max(4096).nullable().optional() })
    .nullable()
    .optional(),
  load_id: z.string().min(1).max(256).optional(),
});

export const analyticsQuery = z.object({ location: z.string().max(256).optional(), location_stack: z.string().max(2048).optional() });

export const createPreviewBody = z.object({
  items,
  currency: currency.optional(),
  payment_source_id: snowflakeField.nullable().optional(),
  trial_id: snowflakeField.nullable().optional(),
  apply_entitlements: z.boolean().optional(),
  renewal: z.boolean().optional(),
  code: z.string().max(256).optional(),
  user_discount_offer_id: snowflakeField.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const modifyPreviewBody = z.object({
  items: items.optional(),
  payment_source_id: snowflakeField.optional(),
  currency: currency.optional(),
  apply_entitlements: z.boolean().optional(),
  renewal: z.boolean().optional(),
  user_discount_offer_id: snowflakeField.optional(),
});

export const payInvoiceBody = z
  .object({
    payment_source_id: snowflakeField.nullable().optional(),
    payment_source_token: z.string().max(1024).optional(),
    currency: currency.optional(),
    return_url: z.string().max(2048).optional(),
  })
  // Required, though null is a value (the subscription's own source).
  .superRefine((body, ctx) => {
    if (body.payment_source_id === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['payment_source_id'],
        params: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' },
        message: 'required',
      });
  })
  .transform((body) => ({ ...body, payment_source_id: body.payment_source_id ?? null }));

export const applyBoostsBody = z.object({
  user_premium_guild_subscription_slot_ids: z.array(snowflakeField).min(1).max(100),
  disable_powerup_auto_apply: z.boolean().optional(),
});

export const appliedQuery = z.object({ paused: queryBoolean });
export const guildBoostsQuery = z.object({ include_ended: queryBoolean });
