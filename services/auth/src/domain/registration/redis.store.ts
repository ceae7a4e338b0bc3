import type { Redis } from 'ioredis';

/** Short-lived single-use values (codes, tokens, fingerprints) under the service's Redis prefix. */
export interface Tickets {
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | null>;
  /** Reads and deletes at once: of two concurrent takers only one gets the value. */
  take(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
}

/** Fixed-window counters for rate limits. */
export interface Windows {
  /** Counts one hit in the window starting at the key's first hit; answers the count and the ms left. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAfterMs: number }>;
}

export class RedisTickets implements Tickets {
  constructor(private readonly redis: Redis) {}

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.redis.set(key, value, 'PX', ttlMs);
  }

  get(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  take(key: string): Promise<string | null> {
    return this.redis.getdel(key);
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(key);
  }
}

export class RedisWindows implements Windows {
  constructor(private readonly redis: Redis) {}

  async hit(key: string, windowMs: number): Promise<{ count: number; resetAfterMs: number }> {
    // SET NX opens the window with its expiry; INCR never touches the expiry, so the window is fixed.
    const results = await this.redis.multi().set(key, '0', 'PX', windowMs, 'NX').incr(key).pttl(key).exec();
    const count = Number(results?.[1]?.[1] ?? 0);
    const pttl = Number(results?.[2]?.[1] ?? windowMs);
    return { count, resetAfterMs: pttl > 0 ? pttl : windowMs };
  }
}
