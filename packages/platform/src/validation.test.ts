import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formErrorFromZod } from './errors.js';
import { lengthString, snowflakeField } from './validation.js';

function errorsOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected the parse to fail');
  return formErrorFromZod(result.error, input).body.errors;
}

describe('lengthString', () => {
  const name = z.object({ username: lengthString(2, 32) });
  const badLength = { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 2 and 32 in length.' }] };

  it('when the string is within the bounds (inclusive), then it parses unchanged', () => {
    expect(name.parse({ username: 'ab' }).username).toBe('ab');
    expect(name.parse({ username: 'x'.repeat(32) }).username).toBe('x'.repeat(32));
  });

  it('when the string is too short, then it is BASE_TYPE_BAD_LENGTH', () => {
    expect(errorsOf(name, { username: 'a' })).toEqual({ username: badLength });
  });

  it('when the string is too long, then it is the same BASE_TYPE_BAD_LENGTH', () => {
    expect(errorsOf(name, { username: 'x'.repeat(33) })).toEqual({ username: badLength });
  });

  it('when the string has astral characters, then each code point counts once', () => {
    const emoji = '😀'.repeat(32);
    expect(emoji.length).toBe(64);
    expect(name.parse({ username: emoji }).username).toBe(emoji);
    expect(errorsOf(name, { username: '😀'.repeat(33) })).toEqual({ username: badLength });
    expect(errorsOf(name, { username: '😀' })).toEqual({ username: badLength });
  });

  it('when the value is missing or not a string, then it is required or a string type error', () => {
    expect(errorsOf(name, {})).toEqual({ username: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] } });
    expect(errorsOf(name, { username: 12 })).toEqual({
      username: { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Could not interpret "12" as string.' }] },
    });
  });
});

describe('snowflakeField', () => {
  const body = z.object({ id: snowflakeField });

  it('when given a string or a non-negative integer, then it parses to the decimal string', () => {
    expect(body.parse({ id: '175928847299117063' }).id).toBe('175928847299117063');
    expect(body.parse({ id: 12345 }).id).toBe('12345');
    expect(body.parse({ id: '9223372036854775807' }).id).toBe('9223372036854775807');
  });

  it('when the value is not a decimal in the signed 64-bit range ids are stored in, then the error is NUMBER_TYPE_COERCE', () => {
    for (const id of ['abc', '', '-1', '12.5', '9223372036854775808', '18446744073709551615', '18446744073709551616', '1'.repeat(21)])
      expect(errorsOf(body, { id }), id).toEqual({ id: { _errors: [{ code: 'NUMBER_TYPE_COERCE', message: 'Value is not snowflake.' }] } });
  });

  it('when the value is missing, then it is a field error on that field', () => {
    const errors = errorsOf(body, {}) as { id: { _errors: unknown[] } };
    expect(errors.id._errors).toHaveLength(1);
  });
});
