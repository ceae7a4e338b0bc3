import type { Redis } from '@kith/platform';
import type { TicketRecord, TicketStore } from '../domain/mfa/tickets.js';
import type { TotpSteps } from '../domain/mfa/ports.js';
import type { BackoffAttempt, BackoffPolicy, Backoffs, OneTimeValues, WindowCount, Windows } from '../domain/ports.js';

const TAKE_FROM_GROUP_SCRIPT = `
local value = redis.call('get', KEYS[1])
if not value then return false end
redis.call('del', KEYS[1])
if redis.call('del', KEYS[2]) == 0 then return false end
return value`;

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

  async takeFromGroup(key: string, groupKey: string): Promise<string | null> {
    return (await this.redis.eval(TAKE_FROM_GROUP_SCRIPT, 2, key, groupKey)) as string | null;
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

  async release(key: string): Promise<void> {
    await this.redis.eval(RELEASE_SCRIPT, 1, key);
  }
}

// DECR on a key that just expired would recreate it without a TTL: only while it lives, never below 0.
const RELEASE_SCRIPT = `if (tonumber(redis.call('get', KEYS[1]) or '0')) > 0 then redis.call('decr', KEYS[1]) end return 0`;

// One step, on the server's clock: refuse while a delay runs; else count the attempt, and past the
// threshold start the next delay (twice the last). The first attempt past the threshold is refused
// (its delay starts now); after each delay one attempt goes ahead and starts the next.
const BACKOFF_SCRIPT = `
local t = redis.call('time')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local untilMs = tonumber(redis.call('hget', KEYS[1], 'until') or '-1')
if untilMs > now then return {untilMs - now, tonumber(redis.call('hget', KEYS[1], 'count') or '0')} end
local count = redis.call('hincrby', KEYS[1], 'count', 1)
redis.call('pexpire', KEYS[1], ARGV[4])
local threshold = tonumber(ARGV[1])
if count <= threshold then return {0, count} end
local delay = math.min(tonumber(ARGV[2]) * 2 ^ (count - threshold - 1), tonumber(ARGV[3]))
redis.call('hset', KEYS[1], 'until', string.format('%.0f', now + delay))
if untilMs < 0 then return {delay, count} end
return {0, count}`;

const BACKOFF_RELEASE_SCRIPT = `if (tonumber(redis.call('hget', KEYS[1], 'count') or '0')) > 0 then redis.call('hincrby', KEYS[1], 'count', -1) end return 0`;

/** Progressive lockouts, each a hash of its attempt count and the end of its running delay. */
export class RedisBackoffs implements Backoffs {
  constructor(private readonly redis: Redis) {}

  async attempt(key: string, policy: BackoffPolicy): Promise<BackoffAttempt> {
    const [waitMs, count] = (await this.redis.eval(
      BACKOFF_SCRIPT,
      1,
      key,
      policy.threshold,
      policy.baseMs,
      policy.maxMs,
      Math.max(policy.memoryMs, policy.maxMs),
    )) as [number, number];
    return { waitMs, count };
  }

  async release(key: string): Promise<void> {
    await this.redis.eval(BACKOFF_RELEASE_SCRIPT, 1, key);
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(key);
  }
}

// Read, count and check in one step, so concurrent attempts on a ticket cannot outnumber its limit:
// past the limit the ticket answers nothing (it stays until it expires; only a right code deletes it).
const ATTEMPT_SCRIPT = `
local record = redis.call('hget', KEYS[1], 'record')
if not record then return false end
if redis.call('hincrby', KEYS[1], 'attempts', 1) > tonumber(ARGV[1]) then return false end
return record`;

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

  async attempt(hash: string, maxAttempts: number): Promise<TicketRecord | undefined> {
    const record = (await this.redis.eval(ATTEMPT_SCRIPT, 1, ticketKey(hash), maxAttempts)) as string | null;
    return record ? (JSON.parse(record) as TicketRecord) : undefined;
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
