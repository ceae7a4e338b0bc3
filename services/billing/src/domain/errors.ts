import { ApiError } from '@kith/platform';

/**
 * The billing errors of the platform, in one catalogue. Codes and messages are the platform's as
 * the public error-code list has them: discord-userdoccers, `pages/datamining/errors.mdx` (commit
 * 18baa186, "Unknown API object" and "Billing" tables; the list now lives behind the site's
 * `pages/topics/errors.mdx` embed), and shared/reference/errors-and-conventions.md. Where the
 * platform documents no code, the entry says so (UNDOCUMENTED). Extra fields (a payment's id)
 * ride on the body as the platform does.
 */
const entries = {
  // A subscription id the user does not hold (another's, or none): the platform's lists have no
  // "Unknown Subscription" (10073 there is "Unknown Subscription Plan", another object), so it is
  // their 100003 Invalid subscription, answered 404 as an unknown object is (as 100059 is below).
  UNKNOWN_SUBSCRIPTION: { code: 100003, status: 404, message: 'Invalid subscription' },
  // 10027 Unknown SKU.
  UNKNOWN_SKU: { code: 10027, status: 404, message: 'Unknown SKU' },
  // 50048 Invalid Payment Source: the documented answer for a payment source id the user does not hold
  // (the list has no "Unknown Payment Source"; 10075 there is "Unknown directory entry").
  UNKNOWN_PAYMENT_SOURCE: { code: 50048, status: 404, message: 'Invalid Payment Source' },
  // 100059 Open invoice not found (10076 there is "Unknown promotion").
  UNKNOWN_INVOICE: { code: 100059, status: 404, message: 'Open invoice not found' },
  // 10055 Unknown Premium Guild Subscription Slot.
  UNKNOWN_SLOT: { code: 10055, status: 404, message: 'Unknown Premium Guild Subscription Slot' },
  // 10100 Unknown user discount.
  UNKNOWN_USER_DISCOUNT: { code: 10100, status: 404, message: 'Unknown user discount' },
  INVALID_PAYMENT_SOURCE: { code: 100002, status: 400, message: 'Invalid payment source' },
  INVALID_SUBSCRIPTION: { code: 100003, status: 400, message: 'Invalid subscription' },
  ALREADY_SUBSCRIBED: { code: 100004, status: 400, message: 'Already subscribed' },
  INVALID_PLAN: { code: 100005, status: 400, message: 'Invalid plan' },
  PAYMENT_SOURCE_REQUIRED: { code: 100006, status: 400, message: 'Payment source required' },
  ALREADY_CANCELED: { code: 100007, status: 400, message: 'Already canceled' },
  INVALID_PAYMENT: { code: 100008, status: 400, message: 'Invalid payment' },
  // A charge that differs from expected_invoice_price / expected_renewal_price (subscription.mdx:
  // "the purchase will fail"; no code of its own in either list): 100008 Invalid payment, listed in
  // both, with what was expected and what it is on the body.
  PRICE_MISMATCH: { code: 100008, status: 400, message: 'Invalid payment' },
  ALREADY_REFUNDED: { code: 100009, status: 400, message: 'Already refunded' },
  PAYMENT_IN_PROGRESS: { code: 100031, status: 400, message: 'There is already a payment in progress' },
  INVALID_SUBSCRIPTION_ITEM: { code: 100034, status: 400, message: 'Invalid subscription item' },
  ITEMS_REQUIRED: { code: 100037, status: 400, message: 'Subscription items are required' },
  CANNOT_PREVIEW: { code: 100038, status: 400, message: 'Cannot preview this subscription update' },
  CONFIRMATION_REQUIRED: { code: 100047, status: 400, message: 'Confirmation required' },
  REFUND_FAILED: { code: 100048, status: 400, message: 'Could not process this refund. Please contact support.' },
  CARD_DECLINED: { code: 100054, status: 400, message: 'The card was declined.' },
  DISCOUNT_NOT_AVAILABLE: { code: 100086, status: 400, message: 'Discount not available for redemption.' },
  // 10050 Unknown premium server subscribe cooldown (errors-and-conventions.md words it for guilds).
  UNKNOWN_COOLDOWN: { code: 10050, status: 404, message: 'Unknown premium guild subscription cooldown' },
  PREMIUM_REQUIRED: { code: 20015, status: 403, message: 'This action requires a premium subscription.' },
  // 50069 Must wait for premium server subscription cooldown to expire.
  BOOST_COOLDOWN: { code: 50069, status: 400, message: 'Must wait for premium server subscription cooldown to expire' },
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

/** Whether `err` is this catalogue's error `name` (compared by code and status). */
export function isBillingError(err: unknown, name: BillingErrorName): boolean {
  const e = entries[name];
  return err instanceof ApiError && err.status === e.status && err.body.code === e.code;
}
