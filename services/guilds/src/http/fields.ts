import { z } from 'zod';
import { snowflakeField } from '@kith/platform';
import { parseBits } from '../domain/permissions.js';
import { isRowId } from '../domain/ids.js';

export { isRowId };

/** Field schemas every request body of the service is built from (guilds, members, roles, channels). */

// Checks run on after a failed one: a value that is no number at all is already reported.
export const idField = snowflakeField.refine((v) => !/^\d{1,20}$/.test(v) || BigInt(v) < 1n << 63n, {
  params: { code: 'NUMBER_TYPE_COERCE', message: 'Value is not snowflake.' },
});

const choices = (values: readonly number[]) => ({
  params: { code: 'BASE_TYPE_CHOICES', message: `Value must be one of {${values.join(', ')}}.` },
});

/** An integer out of a fixed set (channel types, levels, durations). */
export const oneOf = (values: readonly number[]) =>
  z
    .number()
    .int()
    .refine((v) => values.includes(v), choices(values));

/** An integer within bounds, with the platform's out-of-range error. */
export const intIn = (min: number, max: number) =>
  z
    .number()
    .int()
    .refine((v) => v >= min && v <= max, {
      params: { code: 'NUMBER_TYPE_MAX', message: `int value should be between ${min} and ${max}.` },
    });

/** A permission bitfield: a decimal string (or a safe integer, as the platform accepts), at most 64 bits. */
export const bitsField = z.union([z.string(), z.number().int().nonnegative()]).transform((value, ctx) => {
  const bits = parseBits(String(value));
  if (bits === undefined) {
    ctx.addIssue({
      code: 'custom',
      params: { code: 'NUMBER_TYPE_COERCE', message: `Value "${String(value)}" is not a valid permission bitfield.` },
      message: 'bad bits',
    });
    return z.NEVER;
  }
  return bits;
});
