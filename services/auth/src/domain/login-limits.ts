import type { BackoffPolicy, Backoffs, KnownSources, UserRow, Windows } from './ports.js';
import type { GuessAlerts } from './guards/guesses.js';
import { sourceOf } from './guards/sources.js';
import { RateLimitedError, rateKey, type RateRule } from './registration/rate-limit.js';

export interface LoginLimitOptions {
  /** Failed logins per network (any accounts) within `ipWindowMs`: credential stuffing from one place. */
  perIp: number;
  ipWindowMs: number;
  /** Failed logins of one login from one network before its delays begin. */
  perSource: number;
  /** Failed logins of one login from networks its account never signed in from, before their delays begin. */
  perAccount: number;
  /** The first delay; each next one is twice as long, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** How an attempt that went ahead ends; a failure needs nothing, it was counted when it began. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
  /** The password was never checked (the process too busy to): the attempt counts nowhere. */
  withdrawn(): Promise<void>;
}

/** Counters are forgotten a day after their last failure (or after the longest delay, if longer). */
const MEMORY_MS = 86_400_000;

/**
 * Password logins, limited so that guessing is slow and a stranger cannot lock the owner out:
 * - per network: a fixed window over every login it tries;
 * - per login and network: a few failures, then one try per delay, each delay twice the last;
 * - per login, from networks the account never signed in from: the same, with more room. The
 *   owner's known networks are exempt, so strangers spending it do not lock the owner out.
 * Every attempt is counted before the password hash and given back when it succeeds, so concurrent
 * guesses cannot slip past a limit, and a spent limit costs no argon2 work. Logins are keyed by the
 * login string (case aside) whether or not an account has it, so a 429 tells nothing of existence.
 */
export class LoginLimits {
  readonly ip: RateRule;
  readonly source: RateRule;
  readonly account: RateRule;
  private readonly sourcePolicy: BackoffPolicy;
  private readonly accountPolicy: BackoffPolicy;

  constructor(
    private readonly windows: Pick<Windows, 'hit' | 'release'>,
    private readonly backoffs: Backoffs,
    private readonly known: KnownSources,
    options: LoginLimitOptions,
    private readonly alerts?: GuessAlerts,
  ) {
    const delays = { baseMs: options.baseDelayMs, maxMs: options.maxDelayMs, memoryMs: MEMORY_MS };
    this.ip = { name: 'login-failures:ip', limit: options.perIp, windowMs: options.ipWindowMs };
    this.source = { name: 'login-failures:source', limit: options.perSource, windowMs: options.maxDelayMs };
    this.account = { name: 'login-failures:account', limit: options.perAccount, windowMs: options.maxDelayMs };
    this.sourcePolicy = { threshold: options.perSource, ...delays };
    this.accountPolicy = { threshold: options.perAccount, ...delays };
  }

  /** Admits one password check for `login` from `clientIp` (429 when a limit says wait), or throws. */
  async attempt(login: string, user: UserRow | undefined, clientIp: string): Promise<LoginAttempt> {
    const source = sourceOf(clientIp);
    const name = login.trim().toLowerCase();
    const ipKey = rateKey(this.ip, source);
    const pairKey = rateKey(this.source, `${name}\0${source}`);
    const accountKey = rateKey(this.account, name);
    const { count, resetAfterMs } = await this.windows.hit(ipKey, this.ip.windowMs);
    if (count > this.ip.limit) throw new RateLimitedError(this.ip, resetAfterMs);
    const pair = await this.backoffs.attempt(pairKey, this.sourcePolicy);
    if (pair.waitMs > 0) {
      await this.windows.release(ipKey);
      throw new RateLimitedError(this.source, pair.waitMs);
    }
    const known = user !== undefined && (await this.known.knows(user.id, source));
    if (!known) await this.admitStranger(accountKey, user, [() => this.windows.release(ipKey), () => this.backoffs.release(pairKey)]);
    return {
      succeeded: async () => {
        await this.windows.release(ipKey);
        await this.backoffs.clear(pairKey);
        if (!known) await this.backoffs.release(accountKey);
      },
      withdrawn: async () => {
        await this.windows.release(ipKey);
        await this.backoffs.release(pairKey);
        if (!known) await this.backoffs.release(accountKey);
      },
    };
  }

  /**
   * After the owner proved themselves by mail or phone (a reset): strangers' failures stop counting,
   * and only the network of the reset stays known (an intruder's sessions ended with the reset).
   */
  async forgive(user: Pick<UserRow, 'id' | 'email' | 'phone'>, clientIp: string): Promise<void> {
    for (const login of [user.email, user.phone]) if (login) await this.backoffs.clear(rateKey(this.account, login.trim().toLowerCase()));
    await this.known.forgetAllBut(user.id, sourceOf(clientIp));
  }

  private async admitStranger(key: string, user: UserRow | undefined, undo: (() => Promise<void>)[]): Promise<void> {
    const { waitMs, count } = await this.backoffs.attempt(key, this.accountPolicy);
    if (waitMs === 0) return;
    if (user && count === this.accountPolicy.threshold + 1) this.alerts?.limitReached(user, 'login');
    for (const step of undo) await step();
    throw new RateLimitedError(this.account, waitMs);
  }
}
