import { randomInt } from 'node:crypto';

/** The platform's epoch: 2015-01-01T00:00:00Z. */
export const PLATFORM_EPOCH = 1420070400000n;

/**
 * Snowflake ids: `(ms since epoch << 22) | worker << 17 | process << 12 | increment`.
 * Monotonic within a process even when the clock steps back (it waits for the clock to catch up
 * by borrowing from the increment's next millisecond).
 */
export class SnowflakeGenerator {
  private lastMs = 0n;
  private increment = 0n;
  private readonly node: bigint;

  /**
   * Replicas must not share worker and process bits, or ids made in the same millisecond collide.
   * Containers all run as pid 1, so the default is random bits per process; a deployment that
   * numbers its replicas passes them explicitly.
   */
  constructor(workerId = randomInt(32), processId = randomInt(32)) {
    if (workerId < 0 || workerId > 31 || processId < 0 || processId > 31) throw new RangeError('worker and process ids are 0..31');
    this.node = (BigInt(workerId) << 17n) | (BigInt(processId) << 12n);
  }

  next(now: number = Date.now()): string {
    let ms = BigInt(now) - PLATFORM_EPOCH;
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.increment = (this.increment + 1n) & 0xfffn;
      if (this.increment === 0n) ms += 1n;
    } else {
      this.increment = 0n;
    }
    this.lastMs = ms;
    return ((ms << 22n) | this.node | this.increment).toString();
  }
}

/** When a snowflake was made. */
export function snowflakeTime(id: string): Date {
  return new Date(Number((BigInt(id) >> 22n) + PLATFORM_EPOCH));
}

/** Decimal digits within the signed 64-bit range every id is stored in (PostgreSQL bigint). */
export const isSnowflake = (value: string): boolean => /^\d{1,19}$/.test(value) && BigInt(value) < 1n << 63n;
