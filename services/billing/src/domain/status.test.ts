import { describe, expect, it } from 'vitest';
import { canMove, moveForRequestedStatus, nextStatus } from './status.js';
import { SubscriptionStatus as S } from './types.js';

describe('the subscription status machine', () => {
  it('when renewals keep failing, then an active subscription goes past due, to billing retry, to account hold, to ended', () => {
    let status: S = S.ACTIVE;
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((status = nextStatus(status, 'payment_failed')));
    expect(seen).toEqual([S.PAST_DUE, S.BILLING_RETRY, S.ACCOUNT_HOLD, S.ENDED]);
  });

  it('when a payment goes through at any stage of failure, then the subscription is active again', () => {
    for (const from of [S.UNPAID, S.PAST_DUE, S.BILLING_RETRY, S.ACCOUNT_HOLD]) expect(nextStatus(from, 'pay')).toBe(S.ACTIVE);
  });

  it('when a user pauses, then it is pending until the period ends, paused after, and active when the pause ends or is resumed', () => {
    expect(nextStatus(S.ACTIVE, 'pause')).toBe(S.PAUSE_PENDING);
    expect(nextStatus(S.PAUSE_PENDING, 'period_end')).toBe(S.PAUSED);
    expect(nextStatus(S.PAUSED, 'pause_end')).toBe(S.ACTIVE);
    expect(nextStatus(S.PAUSE_PENDING, 'resume')).toBe(S.ACTIVE);
  });

  it('when a user cancels, then it runs to the end of the period and ends; resuming before that keeps it', () => {
    expect(nextStatus(S.ACTIVE, 'cancel')).toBe(S.CANCELED);
    expect(nextStatus(S.CANCELED, 'period_end')).toBe(S.ENDED);
    expect(nextStatus(S.CANCELED, 'resume')).toBe(S.ACTIVE);
  });

  it('when a move is not one the platform documents, then it is refused with its code', () => {
    expect(() => nextStatus(S.CANCELED, 'cancel')).toThrow(expect.objectContaining({ body: expect.objectContaining({ code: 100007 }) }));
    expect(() => nextStatus(S.ENDED, 'cancel')).toThrow(expect.objectContaining({ body: expect.objectContaining({ code: 100007 }) }));
    expect(() => nextStatus(S.ENDED, 'resume')).toThrow(expect.objectContaining({ body: expect.objectContaining({ code: 100003 }) }));
    expect(() => nextStatus(S.PAST_DUE, 'pause')).toThrow(expect.objectContaining({ body: expect.objectContaining({ code: 100003 }) }));
    expect(() => nextStatus(S.UNPAID, 'resume')).toThrow(expect.objectContaining({ body: expect.objectContaining({ code: 100003 }) }));
    expect(canMove(S.ENDED, 'pay')).toBe(false);
    expect(() => moveForRequestedStatus(S.ENDED)).toThrow(expect.objectContaining({ body: expect.objectContaining({ code: 100003 }) }));
    expect(() => moveForRequestedStatus(S.ACCOUNT_HOLD)).toThrow();
  });
});
