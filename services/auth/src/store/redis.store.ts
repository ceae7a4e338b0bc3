import type { Redis } from '@kith/platform';
import type { TicketRecord, TicketStore } from '../domain/mfa/tickets.js';
import type { TotpSteps } from '../domain/mfa/ports.js';
import type { OneTimeValues, WindowCount, Windows } from '../domain/ports.js';

/** Single-use values under the service's Redis prefix. */
export class RedisValues implements OneTimeValues {
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

/** Every fixed-window counter of the service (rate limits, failure limits). */
export class RedisWindows implements Windows {
  constructor(private readonly redis: Redis) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    // SET NX opens the window with its expiry; INCR never touches the expiry, so the window is fixed.
    const results = await this.redis.multi().set(key, '0', 'PX', windowMs, 'NX').incr(key).pttl(key).exec();
    const count = Number(results?.[1]?.[1] ?? 0);
    const pttl = Number(results?.[2]?.[1] ?? windowMs);
    return { count, resetAfterMs: pttl > 0 ? pttl : windowMs };
  }

  async peek(key: string): Promise<WindowCount> {
    const results = await this.redis.multi().get(key).pttl(key).exec();
    const count = Number(results?.[0]?.[1] ?? 0);
    const pttl = Number(results?.[1]?.[1] ?? 0);
    return { count: Number.isFinite(count) ? count : 0, resetAfterMs: Math.max(pttl, 0) };
  }
}

// HINCRBY on a key that just expired would recreate it without a TTL: count only while it lives.
const FAIL_SCRIPT = `if redis.call('exists', KEYS[1]) == 1 then return redis.call('hincrby', KEYS[1], 'attempts', 1) end return -1`;

const ticketKey = (hash: string): string => `mfa:ticket:${hash}`;

/** MFA tickets, by hash, expiring on their own. */
export class RedisTicketStore implements TicketStore {
  constructor(private readonly redis: Redis) {}

  async put(hash: string, record: TicketRecord, ttlSeconds: number): Promise<void> {
    const key = ticketKey(hash);
    await this.redis
      .multi()
      .hset(key, { record: JSON.stringify(record), attempts: 0 })
      .expire(key, ttlSeconds)
      .exec();
  }

  async get(hash: string): Promise<TicketRecord | undefined> {
    const record = await this.redis.hget(ticketKey(hash), 'record');
    return record ? (JSON.parse(record) as TicketRecord) : undefined;
  }

  async fail(hash: string): Promise<number> {
    const attempts = (await this.redis.eval(FAIL_SCRIPT, 1, ticketKey(hash))) as number;
    return attempts < 0 ? Number.MAX_SAFE_INTEGER : attempts;
  }

  async take(hash: string): Promise<boolean> {
    return (await this.redis.del(ticketKey(hash))) === 1;
  }
}

/** The TOTP steps each user has already used, remembered past the validation window. */
export class RedisTotpSteps implements TotpSteps {
  constructor(private readonly redis: Redis) {}

  async claim(userId: string, step: number, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(`mfa:totp-step:${userId}:${step}`, '1', 'EX', ttlSeconds, 'NX')) === 'OK';
  }
}
