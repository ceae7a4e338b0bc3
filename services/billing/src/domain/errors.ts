import { ApiError } from '@kith/platform';

/**
 * The billing errors of the platform (shared/reference/errors-and-conventions.md; the 1000xx
 * codes), in one catalogue. Extra fields (a payment's id) ride on the body as the platform does.
 */
const entries = {
  UNKNOWN_SUBSCRIPTION: { code: 10073, status: 404, message: 'Unknown Subscription' },
  UNKNOWN_SKU: { code: 10027, status: 404, message: 'Unknown SKU' },
  UNKNOWN_PAYMENT_SOURCE: { code: 10075, status: 404, message: 'Unknown Payment Source' },
  UNKNOWN_INVOICE: { code: 10076, status: 404, message: 'Unknown Subscription Invoice' },
  UNKNOWN_SLOT: { code: 10074, status: 404, message: 'Unknown Premium Guild Subscription Slot' },
  INVALID_PAYMENT_SOURCE: { code: 100002, status: 400, message: 'Invalid payment source' },
  INVALID_SUBSCRIPTION: { code: 100003, status: 400, message: 'Invalid subscription' },
  ALREADY_SUBSCRIBED: { code: 100004, status: 400, message: 'Already subscribed' },
  INVALID_PLAN: { code: 100005, status: 400, message: 'Invalid plan' },
  PAYMENT_SOURCE_REQUIRED: { code: 100006, status: 400, message: 'Payment source required' },
  ALREADY_CANCELED: { code: 100007, status: 400, message: 'Already canceled' },
  INVALID_PAYMENT: { code: 100008, status: 400, message: 'Invalid payment' },
  PRICE_MISMATCH: { code: 100008, status: 400, message: 'The price of this purchase differs from the price expected' },
  PAYMENT_IN_PROGRESS: { code: 100031, status: 400, message: 'A payment is already in progress' },
  INVALID_SUBSCRIPTION_ITEM: { code: 100034, status: 400, message: 'Invalid subscription item' },
  ITEMS_REQUIRED: { code: 100037, status: 400, message: 'Subscription items are required' },
  CANNOT_PREVIEW: { code: 100038, status: 400, message: 'Cannot preview this update' },
  CONFIRMATION_REQUIRED: { code: 100047, status: 400, message: 'Confirmation required' },
  CARD_DECLINED: { code: 100054, status: 400, message: 'Your card was declined' },
  UNKNOWN_COOLDOWN: { code: 10050, status: 404, message: 'Unknown premium guild subscription cooldown' },
  PREMIUM_REQUIRED: { code: 20015, status: 403, message: 'This action requires a premium subscription.' },
  BOOST_COOLDOWN: { code: 100050, status: 400, message: 'Premium guild subscription slot changes are on cooldown' },
  LOAD_ID_REUSED: { code: 50035, status: 400, message: 'Invalid Form Body' },
} as const;

export type BillingErrorName = keyof typeof entries;

export function billingError(name: BillingErrorName, extra?: Record<string, unknown>): ApiError {
  const e = entries[name];
  if (name === 'LOAD_ID_REUSED')
    return ApiError.form({ load_id: { code: 'LOAD_ID_REUSED', message: 'This load_id already names a different purchase.' } });
  return new ApiError(e.status, { code: e.code, message: e.message, ...extra });
}

/** A body this service answered with: a purchase's stored outcome is replayed as it was. */
export function errorFromBody(status: number, body: { code: number; message: string }): ApiError {
  return new ApiError(status, body);
}
