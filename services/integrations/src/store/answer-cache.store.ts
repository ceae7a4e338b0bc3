import { randomBytes } from 'node:crypto';
import type { Redis } from '@kith/platform';
import type { AnswerCache } from '../domain/gifs/ports.js';
import { ProviderError } from '../domain/provider.error.js';

export interface AnswerCacheOptions {
  /** How long one loader may hold a key before another replica may try: past the provider's deadline. */
  lockMs: number;
  /** How often a replica waiting on another's load looks for its answer. */
  pollMs?: number;
  /** A failed load is answered as failed for this long, so a provider that is down is not asked by every request. */
  failureTtlMs?: number;
  /** Answers also kept decoded in this process for this long (hot keys skip Redis and JSON). */
  memoMs?: number;
  memoMaxEntries?: number;
}

/** Deletes the lock only if it is still ours: a slow loader must not free a lock another replica took after it expired. */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Provider answers in Redis with a TTL, loaded once however many ask at once: within a process by
 * sharing the load's promise, across replicas by a lock key only one of them gets; the others poll
 * for the answer (or the failure) it stores.
 */
export class RedisAnswerCache implements AnswerCache {
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly memo = new Map<string, { value: unknown; expires: number }>();
  private readonly pollMs: number;
  private readonly failureTtlMs: number;
  private readonly memoMs: number;
  private readonly memoMax: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: AnswerCacheOptions,
  ) {
    this.pollMs = options.pollMs ?? 25;
    this.failureTtlMs = options.failureTtlMs ?? 2000;
    this.memoMs = options.memoMs ?? 2000;
    this.memoMax = options.memoMaxEntries ?? 2000;
  }

  getOrLoad<T>(key: string, ttlSeconds: number, load: () => Promise<T>): Promise<T> {
    const memo = this.memo.get(key);
    if (memo && memo.expires > Date.now()) return Promise.resolve(memo.value as T);
    const running = this.inflight.get(key);
    if (running) return running as Promise<T>;
    const promise = this.fetch(key, ttlSeconds, load)
      .then((value) => {
        this.remember(key, value, ttlSeconds);
        return value;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, promise);
    return promise;
  }

  private remember(key: string, value: unknown, ttlSeconds: number): void {
    this.memo.delete(key);
    if (this.memo.size >= this.memoMax) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(key, { value, expires: Date.now() + Math.min(this.memoMs, ttlSeconds * 1000) });
  }

  private async fetch<T>(key: string, ttlSeconds: number, load: () => Promise<T>): Promise<T> {
    const answerKey = `gifs:answer:${key}`;
    const failureKey = `gifs:failed:${key}`;
    const lockKey = `gifs:lock:${key}`;
    for (;;) {
      const [answer, failure] = await this.redis.mget(answerKey, failureKey);
      if (answer != null) return JSON.parse(answer) as T;
      if (failure != null) throw new ProviderError(failureKind(failure), 'provider failed a moment ago');
      const token = randomBytes(12).toString('base64url');
      if ((await this.redis.set(lockKey, token, 'PX', this.options.lockMs, 'NX')) === 'OK') {
        try {
          return await this.loadAndStore(load, answerKey, failureKey, ttlSeconds);
        } finally {
          await this.redis.eval(RELEASE, 1, lockKey, token);
        }
      }
      await this.waitForOther(answerKey, failureKey, lockKey);
    }
  }

  private async loadAndStore<T>(load: () => Promise<T>, answerKey: string, failureKey: string, ttlSeconds: number): Promise<T> {
    let value: T;
    try {
      value = await load();
    } catch (err) {
      const kind = err instanceof ProviderError ? err.kind : 'unavailable';
      await this.redis.set(failureKey, kind, 'PX', this.failureTtlMs);
      throw err;
    }
    await this.redis.set(answerKey, JSON.stringify(value), 'EX', ttlSeconds);
    return value;
  }

  /** Until the other loader stores an answer or a failure, or its lock lapses (it died): then try again. */
  private async waitForOther(answerKey: string, failureKey: string, lockKey: string): Promise<void> {
    const until = Date.now() + this.options.lockMs;
    while (Date.now() < until) {
      await sleep(this.pollMs);
      const [answer, failure, lock] = await this.redis.mget(answerKey, failureKey, lockKey);
      if (answer != null || failure != null || lock == null) return;
    }
  }
}

function failureKind(stored: string): ProviderError['kind'] {
  return stored === 'timeout' || stored === 'bad_response' ? stored : 'unavailable';
}
