import { createHash } from 'node:crypto';
import type { Windows } from './ports.js';
import { RateLimitedError, type RateRule } from './registration/rate-limit.js';

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
    private readonly windows: Windows,
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
