import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger, Redis } from '@kith/platform';
import { LeasedLimiter, type Count } from './rate-limit.leases.js';
import { LimitRoutes, type RuleMatch } from './rate-limit.routes.js';
import { GLOBAL_LIMIT, INVALID_LIMIT, LIMIT_RULES, type LimitRule, type LimitScope } from './rate-limit.table.js';

export interface RateLimitSettings {
  /** Every limit (global and invalid-request ones included) multiplied by this: test stacks raise it. */
  scale: number;
  /** Per bucket name (`global` and `invalid` too): another limit or window than the table's. */
  overrides: Record<string, { limit?: number; windowS?: number }>;
}

/** Who is asking, as the edge knows it before forwarding. */
export interface Caller {
  /** The client's address. */
  source: string;
  /** The signed-in user and session; null when anonymous. */
  userId: string | null;
  sessionId: string | null;
}

/** What the edge does with a request: the X-RateLimit-* headers to send, and a 429 when refused. */
export interface Verdict {
  headers: Record<string, string>;
  refused?: { body: { message: string; retry_after: number; global: boolean }; headers: Record<string, string> };
}

interface Bucket {
  name: string;
  /** The X-RateLimit-Bucket clients see: a hash of the name, without the major parameter. */
  hash: string;
  limit: number;
  /** `limit` as a header value, made once. */
  limitText: string;
  counter: LeasedLimiter;
}

/**
 * The most points a replica takes from Redis in one go for a key, as a share of the bucket's limit:
 * a tenth (5 of the global 50 a second; 1, i.e. every request counted alone, for limits under 20).
 * See LeasedLimiter for what that bounds.
 */
export const maxLeaseOf = (limit: number): number => Math.max(1, Math.floor(limit / 10));

const MESSAGE = 'You are being rate limited.';
const SCOPE: Record<LimitScope, string> = { caller: 'user', source: 'user', webhook: 'shared' };
const bucketHash = (name: string): string => createHash('sha256').update(name).digest('hex').slice(0, 32);
const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/**
 * The edge's rate limits (rate-limit.table.ts), counted in Redis so every gateway replica shares
 * them, with rate-limiter-flexible's fixed windows. Should Redis fail, each replica counts alone
 * in memory until it is back (the library's insurance limiter): limits loosen, requests still flow.
 *
 * A replica takes a key's points from Redis several at a time when the key is busy (LeasedLimiter:
 * at most a tenth of the limit per take), so most requests of a busy token cost no round trip to
 * Redis; no key is ever admitted past its limit, and with R replicas one may be refused up to
 * R × (take − 1) requests early in a window.
 *
 * Invalid requests (401, 403, 429) are counted per address after the answer; past the limit the
 * address is blocked. A block is kept in each replica's memory: a replica learns of it from Redis
 * at that address's next invalid request, and refuses everything from it without asking Redis.
 */
export class EdgeRateLimits {
  private readonly routes: LimitRoutes;
  private readonly buckets = new Map<string, Bucket>();
  private readonly global: Bucket;
  private readonly invalid: RateLimiterRedis;
  /** Addresses blocked for their invalid requests, until when (ms since the epoch). */
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    redis: Redis,
    private readonly settings: RateLimitSettings,
    private readonly logger: Logger,
    rules: readonly LimitRule[] = LIMIT_RULES,
  ) {
    this.routes = new LimitRoutes(rules);
    for (const rule of rules) if (!this.buckets.has(rule.bucket)) this.buckets.set(rule.bucket, this.bucket(redis, rule));
    this.global = this.bucket(redis, GLOBAL_LIMIT);
    const invalid = this.effective(INVALID_LIMIT);
    this.invalid = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'rl:invalid',
      points: invalid.limit,
      duration: invalid.windowS,
      blockDuration: INVALID_LIMIT.blockS,
      inMemoryBlockOnConsumed: invalid.limit + 1,
      inMemoryBlockDuration: INVALID_LIMIT.blockS,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: 'rl:invalid', points: invalid.limit, duration: invalid.windowS }),
    });
  }

  /** A 429 at once, from memory, while the address is blocked for its invalid requests. */
  blocked(source: string): Verdict | undefined {
    const until = this.blockedUntil.get(source);
    if (until === undefined) return undefined;
    const ms = until - Date.now();
    if (ms <= 0) return void this.blockedUntil.delete(source);
    const headers = { 'retry-after': String(Math.ceil(ms / 1000)), 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' };
    return { headers: {}, refused: { body: { message: MESSAGE, retry_after: Number(seconds(ms)), global: true }, headers } };
  }

  /**
   * Counts the request against the global limit of its token (or address) and every rule of its
   * route, at once: at most one Redis round trip (none while this replica holds points for them).
   * Refused when any of them is spent.
   */
  async check(method: string, path: string, caller: Caller): Promise<Verdict> {
    const matches = this.routes.match(method, path);
    const globalKey = caller.sessionId ? `t:${caller.sessionId}` : `a:${caller.source}`;
    const pending = [this.global.counter.count(globalKey)];
    for (const match of matches) pending.push(this.buckets.get(match.rule.bucket)!.counter.count(keyOf(match, caller)));
    const results = pending.length === 1 ? [await pending[0]!] : await Promise.all(pending);
    const globalResult = results[0]!;
    // The route's own numbers, or the global ones for a route with no limit of its own.
    const shown = matches.length > 0 ? 1 : 0;
    const primary = { bucket: shown ? this.buckets.get(matches[0]!.rule.bucket)! : this.global, result: results[shown]! };
    const headers = rateHeaders(primary.bucket, primary.result);
    if (!globalResult.allowed && shown === 0) return this.refusal(headers, this.global, globalResult, 'global');
    for (let i = 1; i < results.length; i++) {
      const count = results[i]!;
      if (count.allowed) continue;
      const bucket = this.buckets.get(matches[i - 1]!.rule.bucket)!;
      return this.refusal(rateHeaders(bucket, count), bucket, count, SCOPE[matches[i - 1]!.rule.per]);
    }
    if (!globalResult.allowed) return this.refusal(headers, this.global, globalResult, 'global');
    return { headers };
  }

  /** An answer of 401, 403 or 429 to the address; blocks it once it has made too many. */
  recordInvalid(source: string): void {
    this.invalid.consume(source).catch((rejection: unknown) => {
      if (!(rejection instanceof RateLimiterRes)) return void this.logger.warn({ err: rejection }, 'invalid request count failed');
      if (!this.blockedUntil.has(source)) this.logger.warn({ source }, 'address blocked for its invalid requests');
      this.blockedUntil.set(source, Date.now() + rejection.msBeforeNext);
    });
  }

  private refusal(headers: Record<string, string>, bucket: Bucket, count: Count, scope: string): Verdict {
    const retryMs = Math.max(count.msBeforeNext, 1);
    const global = bucket === this.global;
    const extra: Record<string, string> = { 'retry-after': String(Math.ceil(retryMs / 1000)), 'x-ratelimit-scope': scope };
    if (global) extra['x-ratelimit-global'] = 'true';
    return { headers, refused: { body: { message: MESSAGE, retry_after: Number(seconds(retryMs)), global }, headers: extra } };
  }

  private effective(spec: { bucket: string; limit: number; windowS: number }): { limit: number; windowS: number } {
    const override = this.settings.overrides[spec.bucket] ?? {};
    return {
      limit: Math.max(1, Math.round((override.limit ?? spec.limit) * this.settings.scale)),
      windowS: override.windowS ?? spec.windowS,
    };
  }

  private bucket(redis: Redis, spec: { bucket: string; limit: number; windowS: number }): Bucket {
    const { limit, windowS } = this.effective(spec);
    const keyPrefix = `rl:${spec.bucket}`;
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points: limit,
      duration: windowS,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: limit, duration: windowS }),
    });
    // Redis and the insurance both failed: the requests go through rather than fail.
    const unavailable = (err: unknown): void => this.logger.warn({ err, bucket: spec.bucket }, 'rate limit not counted');
    const counter = new LeasedLimiter(limiter, limit, windowS, maxLeaseOf(limit), unavailable);
    return { name: spec.bucket, hash: bucketHash(spec.bucket), limit, limitText: String(limit), counter };
  }
}

function keyOf({ rule, major }: RuleMatch, caller: Caller): string {
  const who = rule.per === 'webhook' ? '' : rule.per === 'caller' && caller.userId ? `u:${caller.userId}` : `a:${caller.source}`;
  return `${who}|${major}`;
}

function rateHeaders(bucket: Bucket, count: Count): Record<string, string> {
  const resetAfter = Math.max(count.msBeforeNext, 0);
  return {
    'x-ratelimit-limit': bucket.limitText,
    'x-ratelimit-remaining': String(Math.max(bucket.limit - count.consumed, 0)),
    'x-ratelimit-reset': seconds(Date.now() + resetAfter),
    'x-ratelimit-reset-after': seconds(resetAfter),
    'x-ratelimit-bucket': bucket.hash,
  };
}
