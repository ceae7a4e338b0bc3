import { billingError } from './errors.js';
import { SubscriptionStatus as S, type SubscriptionStatus } from './types.js';

/**
 * The subscription status machine. Users move a subscription by asking for a status (resume 1,
 * cancel 3, pause 8); the scheduler and the gateway move it by what happens to payments and
 * periods. Every move not listed here is refused.
 */
export type Move =
  | 'pay' // a payment for the subscription went through
  | 'payment_failed' // a renewal charge (or its retry) failed
  | 'period_end' // the paid period ran out
  | 'pause_end' // a pause ran out
  | 'cancel'
  | 'resume'
  | 'pause'
  | 'abandon'; // an unpaid purchase never confirmed

const MOVES: Record<SubscriptionStatus, Partial<Record<Move, SubscriptionStatus>>> = {
  [S.UNPAID]: { pay: S.ACTIVE, cancel: S.ENDED, abandon: S.ENDED },
  [S.ACTIVE]: { payment_failed: S.PAST_DUE, period_end: S.ACTIVE, cancel: S.CANCELED, pause: S.PAUSE_PENDING, pay: S.ACTIVE },
  [S.PAST_DUE]: { pay: S.ACTIVE, payment_failed: S.BILLING_RETRY, cancel: S.ENDED },
  [S.BILLING_RETRY]: { pay: S.ACTIVE, payment_failed: S.ACCOUNT_HOLD, cancel: S.ENDED },
  [S.ACCOUNT_HOLD]: { pay: S.ACTIVE, payment_failed: S.ENDED, cancel: S.ENDED },
  [S.CANCELED]: { resume: S.ACTIVE, period_end: S.ENDED },
  [S.ENDED]: {},
  [S.PAUSE_PENDING]: { resume: S.ACTIVE, cancel: S.CANCELED, period_end: S.PAUSED },
  [S.PAUSED]: { resume: S.ACTIVE, pause_end: S.ACTIVE, payment_failed: S.PAST_DUE, cancel: S.ENDED, pay: S.ACTIVE },
};

/** Where a move takes a subscription, or the platform's error for a move it cannot make. */
export function nextStatus(from: SubscriptionStatus, move: Move): SubscriptionStatus {
  const to = MOVES[from][move];
  if (to !== undefined) return to;
  if (move === 'cancel' && (from === S.CANCELED || from === S.ENDED)) throw billingError('ALREADY_CANCELED');
  throw billingError('INVALID_SUBSCRIPTION');
}

export function canMove(from: SubscriptionStatus, move: Move): boolean {
  return MOVES[from][move] !== undefined;
}

/** The move a user asks for by naming a status in Modify Subscription. */
export function moveForRequestedStatus(status: number): Move {
  if (status === S.ACTIVE) return 'resume';
  if (status === S.CANCELED) return 'cancel';
  if (status === S.PAUSED || status === S.PAUSE_PENDING) return 'pause';
  throw billingError('INVALID_SUBSCRIPTION');
}

/** Statuses whose holder keeps the perks (premium type, boost slots). */
export function grantsPerks(status: SubscriptionStatus): boolean {
  return status === S.ACTIVE || status === S.CANCELED || status === S.PAST_DUE || status === S.BILLING_RETRY || status === S.PAUSE_PENDING;
}

/** Statuses an open invoice may be paid in. */
export function payable(status: SubscriptionStatus): boolean {
  return status === S.UNPAID || status === S.PAST_DUE || status === S.BILLING_RETRY || status === S.ACCOUNT_HOLD;
}
