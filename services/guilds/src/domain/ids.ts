import { ApiError, isSnowflake } from '@kith/platform';

/**
 * Ids are snowflakes kept as signed 64-bit integers: one past 2^63 - 1 is a valid snowflake shape
 * but nothing can have it (and PostgreSQL would refuse to even compare it).
 */
export const isRowId = (v: string): boolean => isSnowflake(v) && BigInt(v) < 1n << 63n;

/** Refuses, as the platform's form error does, any value that is not an id a row can have. */
export function requireRowIds(...values: string[]): void {
  for (const v of values)
    if (!isRowId(v)) throw ApiError.form({ id: { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not snowflake.` } });
}
