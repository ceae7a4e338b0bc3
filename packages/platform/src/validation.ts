import { z } from 'zod';

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

/** A snowflake id given in a body: a string (or number) of 1 to 20 decimal digits. */
export const snowflakeField = z
  .union([z.string(), z.number().int().nonnegative()])
  .transform((v) => String(v))
  .refine((v) => /^\d{1,20}$/.test(v) && BigInt(v) < 2n ** 64n, {
    params: { code: 'NUMBER_TYPE_COERCE', message: 'Value is not snowflake.' },
  });
