import { describe, expect, it } from 'vitest';
import { PLATFORM_EPOCH, SnowflakeGenerator, isSnowflake, snowflakeTime } from './snowflake.js';

const ascending = (ids: string[]) => ids.every((id, i) => i === 0 || BigInt(id) > BigInt(ids[i - 1]!));

describe('SnowflakeGenerator', () => {
  it('when the epoch is read, then it is 2015-01-01T00:00:00Z', () => {
    expect(new Date(Number(PLATFORM_EPOCH)).toISOString()).toBe('2015-01-01T00:00:00.000Z');
  });

  it('when ids are made over time, then each is larger than the one before', () => {
    const gen = new SnowflakeGenerator(1, 2);
    const start = Date.UTC(2024, 0, 1);
    const ids = Array.from({ length: 100 }, (_, i) => gen.next(start + i * 7));
    expect(ascending(ids)).toBe(true);
  });

  it('when many ids are made in the same millisecond, then they stay unique and increasing, spilling into the next ms', () => {
    const gen = new SnowflakeGenerator(0, 0);
    const now = Date.UTC(2024, 5, 1, 12);
    const ids = Array.from({ length: 10_000 }, () => gen.next(now));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ascending(ids)).toBe(true);
    // 4096 increments fit in one millisecond; the rest borrow the following milliseconds.
    expect(snowflakeTime(ids[4095]!).getTime()).toBe(now);
    expect(snowflakeTime(ids[4096]!).getTime()).toBe(now + 1);
    expect(snowflakeTime(ids[9999]!).getTime()).toBe(now + 2);
  });

  it('when the clock steps back, then ids keep increasing', () => {
    const gen = new SnowflakeGenerator(3, 4);
    const now = Date.UTC(2024, 5, 1, 12);
    const before = gen.next(now);
    const during = [gen.next(now - 5_000), gen.next(now - 4_999), gen.next(now - 1)];
    const after = gen.next(now + 1);
    expect(ascending([before, ...during, after])).toBe(true);
    expect(snowflakeTime(after).getTime()).toBe(now + 1);
  });

  it('when an id is made, then it carries the worker, process and increment bits where the layout says', () => {
    const gen = new SnowflakeGenerator(31, 17);
    const now = Date.UTC(2023, 0, 1);
    gen.next(now);
    const id = BigInt(gen.next(now));
    expect(id >> 22n).toBe(BigInt(now) - PLATFORM_EPOCH);
    expect((id >> 17n) & 0x1fn).toBe(31n);
    expect((id >> 12n) & 0x1fn).toBe(17n);
    expect(id & 0xfffn).toBe(1n);
  });

  it('when ids are made with the real clock, then they are 17-19 digit snowflakes of about now', () => {
    const gen = new SnowflakeGenerator();
    const before = Date.now();
    const id = gen.next();
    expect(id).toMatch(/^\d{17,19}$/);
    expect(isSnowflake(id)).toBe(true);
    expect(snowflakeTime(id).getTime()).toBeGreaterThanOrEqual(before);
    expect(snowflakeTime(id).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('when the worker or process id is outside 0..31, then the constructor refuses it', () => {
    expect(() => new SnowflakeGenerator(32, 0)).toThrow(RangeError);
    expect(() => new SnowflakeGenerator(0, -1)).toThrow(RangeError);
  });
});

describe('snowflakeTime', () => {
  it('when given a known id, then it returns its creation time', () => {
    // A documented example id: 175928847299117063 was made at 2016-04-30T11:18:25.796Z.
    expect(snowflakeTime('175928847299117063').toISOString()).toBe('2016-04-30T11:18:25.796Z');
  });

  it('when given an id this generator made, then the time round-trips to the millisecond', () => {
    const gen = new SnowflakeGenerator(5, 6);
    for (const t of [Date.UTC(2015, 0, 1), Date.UTC(2020, 1, 29, 23, 59, 59, 999), Date.UTC(2050, 6, 4)])
      expect(snowflakeTime(gen.next(t)).getTime()).toBe(t);
  });
});

describe('isSnowflake', () => {
  it('when given decimal digits below 2^63, then it is a snowflake', () => {
    for (const id of ['0', '1', '175928847299117063', '9223372036854775807']) expect(isSnowflake(id), id).toBe(true);
  });

  it('when given anything else, then it is not', () => {
    for (const id of [
      '',
      'abc',
      '-1',
      '1.5',
      ' 1',
      '1e5',
      '9223372036854775808',
      '18446744073709551615',
      '18446744073709551616',
      '9'.repeat(21),
    ])
      expect(isSnowflake(id), id).toBe(false);
  });
});
