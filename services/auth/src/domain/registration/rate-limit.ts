import { createHash } from 'node:crypto';
import type { Windows } from '../ports.js';

export interface RateRule {
  /** Also the bucket name clients see, hashed. */
  name: string;
  limit: number;
  windowMs: number;
}

/** Answered as the platform's 429: its body and its rate-limit headers. */
export class RateLimitedError extends Error {
  constructor(
    readonly rule: RateRule,
    readonly retryAfterMs: number,
  ) {
    super(`rate limited: ${rule.name}`);
    this.name = 'RateLimitedError';
  }

  get bucket(): string {
    return createHash('sha256').update(this.rule.name).digest('hex').slice(0, 32);
  }
}

/** Where a rule's counter for one subject lives; subjects (logins, addresses) are kept only as hashes. */
export const rateKey = (rule: Pick<RateRule, 'name'>, subject: string): string =>
  `rl:${rule.name}:${createHash('sha256').update(subject).digest('base64url').slice(0, 22)}`;

export class RateLimiter {
  constructor(private readonly windows: Pick<Windows, 'hit'>) {}

  /** Counts one use of `rule` by `subject`; throws RateLimitedError once the window's limit is spent. */
  async consume(rule: RateRule, subject: string): Promise<void> {
    const { count, resetAfterMs } = await this.windows.hit(rateKey(rule, subject), rule.windowMs);
    if (count > rule.limit) throw new RateLimitedError(rule, resetAfterMs);
  }
}
