import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** What one request's count came to, as this replica knows it. */
export interface Count {
  allowed: boolean;
  /** The window's count including this request (past the limit when refused). */
  consumed: number;
  /** Until the window ends. */
  msBeforeNext: number;
}

/** One key's points in the current window, on this replica. */
interface Lease {
  /** Points taken from the limiter and not yet handed to a request. */
  spare: number;
  /** The window's count as of the last request handed a point: what X-RateLimit-Remaining is made of. */
  consumed: number;
  /** When the window ends by this replica's clock: never later than in the store. */
  endsAt: number;
  /** The store has no point left in this window: requests are refused here until it ends. */
  spent: boolean;
  /** Requests this replica admitted in the window, and in the window before (sizes the next take). */
  admitted: number;
  previous: number;
  /** Requests waiting for the take in flight; null when none is. */
  queue: ((count: Count) => void)[] | null;
}

/** Whatever the limiter answers when neither Redis nor its insurance could count. */
export type Unavailable = (err: unknown) => void;

/**
 * Points of one rate-limiter-flexible limiter handed to requests from per-key leases, so that a
 * key's requests on this replica cost one store round trip per several requests instead of one
 * each. The limiter (its fixed windows, the counts in Redis shared by every replica, its insurance
 * when Redis fails) decides everything; a lease only takes several points in one `consume`:
 *
 * - a take is as large as the requests waiting for it, or as one more than the requests this
 *   replica admitted for the key in the window before, up to `maxLease`; one take per key is in
 *   flight at a time, and requests arriving meanwhile wait for it and are served from it;
 * - of a take that crosses the limit, only the points under it are handed out, and the replica
 *   refuses the key's requests itself until the window ends (the store has nothing left to give);
 * - a lease ends with its window, by a clock started before the take was sent, so never after
 *   the store's window.
 *
 * Bounds: every point handed out was counted within the limit in Redis, so across all replicas a
 * key is never admitted more than the limit in a window. A replica may hold up to `maxLease - 1`
 * points it took and did not hand out (its requests for the key stopped or moved to another
 * replica), so with R replicas a key can be refused up to R × (maxLease - 1) requests before the
 * limit. With `maxLease` 1 every request is counted alone, exactly.
 */
export class LeasedLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly windowMs: number;
  private nextSweep = 0;

  constructor(
    private readonly limiter: RateLimiterAbstract,
    private readonly limit: number,
    windowS: number,
    private readonly maxLease: number,
    private readonly unavailable: Unavailable,
  ) {
    this.windowMs = windowS * 1000;
  }

  /** Counts one request of `key`; resolves with whether it may pass. */
  count(key: string): Count | Promise<Count> {
    const now = Date.now();
    if (now >= this.nextSweep) this.sweep(now);
    let lease = this.leases.get(key);
    if (lease === undefined) {
      lease = { spare: 0, consumed: 0, endsAt: 0, spent: false, admitted: 0, previous: 0, queue: null };
      this.leases.set(key, lease);
    } else if (lease.queue === null && now >= lease.endsAt) this.roll(lease, now);

    if (lease.queue === null) {
      if (lease.spare > 0) return this.handOut(lease, now);
      if (lease.spent) return { allowed: false, consumed: this.limit + 1, msBeforeNext: lease.endsAt - now };
    }
    return new Promise<Count>((resolve) => {
      if (lease.queue) return void lease.queue.push(resolve);
      lease.queue = [resolve];
      this.take(key, lease);
    });
  }

  private handOut(lease: Lease, now: number): Count {
    lease.spare--;
    lease.consumed++;
    lease.admitted++;
    return { allowed: true, consumed: lease.consumed, msBeforeNext: Math.max(lease.endsAt - now, 0) };
  }

  /** A new window: what the last one admitted sizes the first take of this one. */
  private roll(lease: Lease, now: number): void {
    lease.previous = now - lease.endsAt < this.windowMs ? lease.admitted : 0;
    lease.admitted = 0;
    lease.spare = 0;
    lease.consumed = 0;
    lease.spent = false;
  }

  private take(key: string, lease: Lease): void {
    const waiting = lease.queue!.length;
    // One more than last window's: a key as busy as then needs one take per window, not two.
    const size = Math.min(this.limit, Math.max(waiting, Math.min(this.maxLease, lease.previous + 1)));
    const sentAt = Date.now();
    const settle = (taken: number, consumed: number, msBeforeNext: number): void => {
      const queue = lease.queue!;
      lease.queue = null;
      lease.endsAt = sentAt + msBeforeNext;
      // Of the points taken, those the count reached before the limit are ours.
      const before = consumed - taken;
      lease.spare = Math.max(0, Math.min(taken, this.limit - before));
      lease.consumed = before;
      lease.spent = consumed >= this.limit;
      // The waiting requests get the points taken for them, even should the window have ended meanwhile.
      const now = Date.now();
      const left = Math.max(lease.endsAt - now, 0);
      let served = 0;
      for (; served < queue.length && lease.spare > 0; served++) queue[served]!(this.handOut(lease, now));
      if (served < queue.length && lease.spent) {
        for (; served < queue.length; served++) queue[served]!({ allowed: false, consumed, msBeforeNext: left });
      } else if (served < queue.length) {
        // Points left in the store: the rest wait for another take (every take serves or refuses some).
        lease.queue = queue.slice(served);
        this.take(key, lease);
      }
    };
    this.limiter.consume(key, size).then(
      (res) => settle(size, res.consumedPoints, res.msBeforeNext),
      (rejection: unknown) => {
        if (rejection instanceof RateLimiterRes) return settle(size, rejection.consumedPoints, rejection.msBeforeNext);
        // Redis and the insurance both failed: let the waiting requests through, keep no lease.
        this.unavailable(rejection);
        const queue = lease.queue!;
        lease.queue = null;
        lease.spare = 0;
        lease.endsAt = 0;
        for (const resolve of queue) resolve({ allowed: true, consumed: 0, msBeforeNext: 0 });
      },
    );
  }

  /** Forgets keys whose window ended over a window ago (their size hint is stale by then). */
  private sweep(now: number): void {
    this.nextSweep = now + Math.max(this.windowMs, 1000);
    for (const [key, lease] of this.leases) if (lease.queue === null && now - lease.endsAt >= this.windowMs) this.leases.delete(key);
  }
}
