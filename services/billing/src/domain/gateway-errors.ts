import { UpstreamError } from '@kith/platform';
import { billingError } from './errors.js';
import { PaymentGatewayUnavailable, PaymentSourceRefused } from './ports.js';

/**
 * A gateway failure as the client sees it: a refused card is the platform's card-declined (or
 * invalid payment source for a token the gateway does not know); an unreachable or late gateway
 * is the upstream's 502/504, and nothing was decided.
 */
export function gatewayFailure(err: unknown): Error {
  if (err instanceof PaymentSourceRefused)
    return err.declineCode === 'resource_missing' || err.declineCode === 'incorrect_number' || err.declineCode === 'invalid_request'
      ? billingError('INVALID_PAYMENT_SOURCE')
      : billingError('CARD_DECLINED', { decline_code: err.declineCode });
  if (err instanceof PaymentGatewayUnavailable) return new UpstreamError(err.kind === 'timeout' ? 504 : 502, err.message);
  return err as Error;
}
