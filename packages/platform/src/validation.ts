import { z } from 'zod';
import { isSnowflake } from './snowflake.js';

/**
 * Field schemas that speak the platform's form-error codes where zod's defaults would not
 * (a length with both bounds is BASE_TYPE_BAD_LENGTH, whichever side it breaks).
 */
export function lengthString(min: number, max: number) {
  return z.string().superRefine((value, ctx) => {
    const length = [...value].length;
    if (length < min || length > max)
      ctx.addIssue({
        code: 'custom',
        params: { code: 'BASE_TYPE_BAD_LENGTH', message: `Must be between ${min} and ${max} in length.` },
        message: 'bad length',
      });
  });
}

/**
 * A snowflake id given in a body, path or query: a string (or number) of decimal digits within
 * the signed 64-bit range ids are stored in (PostgreSQL bigint). One at 2^63 or above has the
 * shape of a snowflake but no id can be it, and the database would refuse even to compare it.
 */
export const snowflakeField = z
  .union([z.string(), z.number().int().nonnegative()])
  .transform((v) => String(v))
  .refine(isSnowflake, {
    params: { code: 'NUMBER_TYPE_COERCE', message: 'Value is not snowflake.' },
  });
