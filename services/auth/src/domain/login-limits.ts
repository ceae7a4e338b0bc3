import { createHash } from 'node:crypto';
import type { Redis } from '@kith/platform';
import { RateLimitedError, type RateRule } from './registration/rate-limit.js';

/** Fixed-window failure counters: read without counting, and count one failure. */
export interface FailureWindows {
  peek(key: string): Promise<{ count: number; resetAfterMs: number }>;
  hit(key: string, windowMs: number): Promise<{ count: number; resetAfterMs: number }>;
}

export interface LoginLimitOptions {
  perAccount: number;
  perIp: number;
  windowMs: number;
}

/**
 * Failed password logins, limited per login string (so the answer is the same whether or not an
 * account has it) and per client address. Checked before the password hash, so a spent window
 * costs no argon2 work; only failures count.
 */
export class LoginLimits {
  readonly account: RateRule;
  readonly ip: RateRule;

  constructor(
    private readonly windows: FailureWindows,
    options: LoginLimitOptions,
  ) {
    this.account = { name: 'login-failures:account', limit: options.perAccount, windowMs: options.windowMs };
    this.ip = { name: 'login-failures:ip', limit: options.perIp, windowMs: options.windowMs };
  }

  /** Throws RateLimitedError when either window has no failures left. */
  async check(login: string, clientIp: string): Promise<void> {
    for (const [rule, subject] of this.subjects(login, clientIp)) {
      const { count, resetAfterMs } = await this.windows.peek(keyOf(rule, subject));
      if (count >= rule.limit) throw new RateLimitedError(rule, resetAfterMs);
    }
  }

  async fail(login: string, clientIp: string): Promise<void> {
    for (const [rule, subject] of this.subjects(login, clientIp)) await this.windows.hit(keyOf(rule, subject), rule.windowMs);
  }

  private subjects(login: string, clientIp: string): [RateRule, string][] {
    return [
      [this.ip, clientIp || 'unknown'],
      [this.account, login.trim().toLowerCase()],
    ];
  }
}

const keyOf = (rule: RateRule, subject: string): string =>
  `rl:${rule.name}:${createHash('sha256').update(subject).digest('base64url').slice(0, 22)}`;

/** The counters in the service's Redis, as RedisWindows keeps them. */
export class RedisFailureWindows implements FailureWindows {
  constructor(private readonly redis: Redis) {}

  async peek(key: string): Promise<{ count: number; resetAfterMs: number }> {
    const results = await this.redis.multi().get(key).pttl(key).exec();
    const count = Number(results?.[0]?.[1] ?? 0);
    const pttl = Number(results?.[1]?.[1] ?? 0);
    return { count: Number.isFinite(count) ? count : 0, resetAfterMs: Math.max(pttl, 0) };
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetAfterMs: number }> {
    // SET NX opens the window with its expiry; INCR keeps it, so the window is fixed.
    const results = await this.redis.multi().set(key, '0', 'PX', windowMs, 'NX').incr(key).pttl(key).exec();
    const pttl = Number(results?.[2]?.[1] ?? windowMs);
    return { count: Number(results?.[1]?.[1] ?? 0), resetAfterMs: pttl > 0 ? pttl : windowMs };
  }
}
