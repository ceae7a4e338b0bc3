import { OverloadedError } from '@kith/platform';
import type { UserRow, Windows } from '../ports.js';
import { RateLimitedError, rateKey, type RateRule } from '../registration/rate-limit.js';

/** What a guess is at: a second factor (a code, a key) or the password behind a signed-in session. */
export type GuessKind = 'second-factor' | 'password';

/** Tells the owner, once per window, that a limit on guesses at their account was reached (logins too). */
export interface GuessAlerts {
  limitReached(user: UserRow, kind: GuessKind | 'login'): void;
}

/**
 * Guesses at an account's secrets, limited per account whatever ticket, session or address they
 * come through. Each guess is counted before it is checked and given back when it was right, so
 * concurrent guesses cannot slip past the limit, and once it is spent every answer is the same 429
 * (the secret is never checked, so a right guess cannot be told from a wrong one).
 */
export class GuessLimits {
  constructor(
    private readonly windows: Pick<Windows, 'hit' | 'release'>,
    private readonly rules: Record<GuessKind, RateRule>,
    private readonly alerts?: GuessAlerts,
  ) {}

  async guess(kind: GuessKind, user: UserRow, check: () => Promise<boolean>): Promise<boolean> {
    const rule = this.rules[kind];
    const key = rateKey(rule, user.id);
    const { count, resetAfterMs } = await this.windows.hit(key, rule.windowMs);
    if (count > rule.limit) {
      // Exactly one request sees the first count past the limit, however many arrive at once.
      if (count === rule.limit + 1) this.alerts?.limitReached(user, kind);
      throw new RateLimitedError(rule, resetAfterMs);
    }
    let right = false;
    try {
      right = await check();
    } catch (err) {
      // Refused before any check (too busy, 503): no guess was made, so none is counted.
      if (err instanceof OverloadedError) await this.windows.release(key);
      throw err;
    }
    if (right) await this.windows.release(key);
    return right;
  }
}
