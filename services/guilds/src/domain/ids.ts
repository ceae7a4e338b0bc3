import { isSnowflake } from '@kith/platform';

/**
 * Ids are snowflakes kept as signed 64-bit integers: one past 2^63 - 1 is a valid snowflake shape
 * but nothing can have it (and PostgreSQL would refuse to even compare it).
 */
export const isRowId = (v: string): boolean => isSnowflake(v) && BigInt(v) < 1n << 63n;
