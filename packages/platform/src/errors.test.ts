import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, ERRORS, INTERNAL_ERROR_BODY, formErrorFromZod, isStoreUnavailable } from './errors.js';

/** The 50035 body for `input` parsed with `schema`, as a service's route would answer. */
function formBody(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected the parse to fail');
  const error = formErrorFromZod(result.error, input);
  expect(error.status).toBe(400);
  expect(error.body.code).toBe(50035);
  expect(error.body.message).toBe('Invalid Form Body');
  return error.body.errors;
}

const required = { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };

describe('ApiError', () => {
  it('when made from a catalogue name, then status, code and message come from the catalogue', () => {
    const err = ApiError.of('UNKNOWN_USER');
    expect(err).toBeInstanceOf(Error);
    expect(err.status).toBe(404);
    expect(err.body).toEqual({ code: 10013, message: 'Unknown User' });
    expect(err.message).toBe('Unknown User');
  });

  it('when made with extra fields, then they ride along in the body', () => {
    const err = ApiError.of('MFA_REQUIRED', { ticket: 'abc', mfa: { methods: ['totp'] } });
    expect(err.status).toBe(401);
    expect(err.body).toEqual({
      code: 60003,
      message: 'Two factor is required for this operation',
      ticket: 'abc',
      mfa: { methods: ['totp'] },
    });
  });

  it('when made as a form error, then dotted paths nest and share parents, and an empty path is request-level', () => {
    const err = ApiError.form({
      'embeds.0.title': { code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 256 or fewer in length.' },
      'embeds.0.url': { code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' },
      '': { code: 'INVALID_LOGIN', message: 'Login or password is invalid.' },
    });
    expect(err.status).toBe(400);
    expect(err.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        embeds: {
          '0': {
            title: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 256 or fewer in length.' }] },
            url: { _errors: [{ code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' }] },
          },
        },
        _errors: [{ code: 'INVALID_LOGIN', message: 'Login or password is invalid.' }],
      },
    });
  });

  it('when a form path names "__proto__", then it becomes an own key of the body, not a prototype', () => {
    const err = ApiError.form({ '__proto__.polluted': { code: 'X', message: 'y' } });
    expect(JSON.parse(JSON.stringify(err.body.errors))).toEqual(
      JSON.parse('{"__proto__": {"polluted": {"_errors": [{"code": "X", "message": "y"}]}}}'),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('when a bare status error is made, then its body is code 0 with the status text', () => {
    expect([ApiError.notFound(), ApiError.unauthorized(), ApiError.methodNotAllowed()].map((e) => [e.status, e.body])).toEqual([
      [404, { code: 0, message: '404: Not Found' }],
      [401, { code: 0, message: '401: Unauthorized' }],
      [405, { code: 0, message: '405: Method Not Allowed' }],
    ]);
    expect(INTERNAL_ERROR_BODY).toEqual({ code: 0, message: '500: Internal Server Error' });
  });

  it('when the catalogue is read, then no code is used twice', () => {
    const codes = Object.values(ERRORS).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('formErrorFromZod', () => {
  it('when a required field is missing, then it is BASE_TYPE_REQUIRED "This field is required"', () => {
    expect(formBody(z.object({ username: z.string() }), {})).toEqual({ username: { _errors: [required] } });
  });

  it('when a field has the wrong type, then it is a type error rather than "required"', () => {
    const schema = z.object({ name: z.string(), age: z.number(), nsfw: z.boolean(), tags: z.array(z.string()), meta: z.object({}) });
    expect(formBody(schema, { name: 5, age: 'x', nsfw: 'yes', tags: 'a', meta: 3 })).toEqual({
      name: { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Could not interpret "5" as string.' }] },
      age: { _errors: [{ code: 'BASE_TYPE_BAD_INT', message: 'Value "x" is not int.' }] },
      nsfw: { _errors: [{ code: 'BASE_TYPE_BAD_BOOLEAN', message: 'Could not interpret "yes" as boolean.' }] },
      tags: { _errors: [{ code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' }] },
      meta: { _errors: [{ code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' }] },
    });
  });

  it('when the input was parsed with reportInput, then the issue carries the value and no input is needed', () => {
    const result = z.object({ name: z.string(), bio: z.string() }).safeParse({ name: 5 }, { reportInput: true });
    expect(formErrorFromZod(result.error!).body.errors).toEqual({
      name: { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Could not interpret "5" as string.' }] },
      bio: { _errors: [required] },
    });
  });

  it('when a missing field is named like an Object.prototype member, then it is still required', () => {
    expect(formBody(z.object({ constructor: z.string() }), {})).toEqual({ constructor: { _errors: [required] } });
  });

  it('when a client-chosen key is "constructor", then its error is in the body and nothing shared is touched', () => {
    const input = JSON.parse('{"constructor": 6, "ok": "fine"}') as unknown;
    expect(formBody(z.record(z.string(), z.string()), input)).toEqual({
      constructor: { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Could not interpret "6" as string.' }] },
    });
    expect(Object.hasOwn(Object, '_errors')).toBe(false);
    expect(Object.hasOwn(Object.prototype, '_errors')).toBe(false);
  });

  it('when errors sit in nested objects and arrays, then arrays are keyed by index', () => {
    const schema = z.object({
      embeds: z.array(z.object({ title: z.string().max(256), footer: z.object({ text: z.string() }) })),
    });
    const body = formBody(schema, {
      embeds: [
        { title: 'ok', footer: { text: 'ok' } },
        { title: 'x'.repeat(257), footer: {} },
      ],
    });
    expect(body).toEqual({
      embeds: {
        '1': {
          title: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 256 or fewer in length.' }] },
          footer: { text: { _errors: [required] } },
        },
      },
    });
    expect(Object.keys((body as { embeds: object }).embeds)).toEqual(['1']);
  });

  it('when a string or array is too short or too long, then it is BASE_TYPE_MIN_LENGTH / BASE_TYPE_MAX_LENGTH', () => {
    const schema = z.object({ a: z.string().min(2), b: z.string().max(3), c: z.array(z.string()).min(1), d: z.array(z.string()).max(1) });
    expect(formBody(schema, { a: 'x', b: 'long', c: [], d: ['1', '2'] })).toEqual({
      a: { _errors: [{ code: 'BASE_TYPE_MIN_LENGTH', message: 'Must be 2 or more in length.' }] },
      b: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 3 or fewer in length.' }] },
      c: { _errors: [{ code: 'BASE_TYPE_MIN_LENGTH', message: 'Must be 1 or more in length.' }] },
      d: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 1 or fewer in length.' }] },
    });
  });

  it('when a number is out of range, then it is NUMBER_TYPE_MIN / NUMBER_TYPE_MAX', () => {
    const schema = z.object({ lo: z.number().min(1), hi: z.number().max(10) });
    expect(formBody(schema, { lo: 0, hi: 11 })).toEqual({
      lo: { _errors: [{ code: 'NUMBER_TYPE_MIN', message: 'int value should be greater than or equal to 1.' }] },
      hi: { _errors: [{ code: 'NUMBER_TYPE_MAX', message: 'int value should be less than or equal to 10.' }] },
    });
  });

  it('when an email is malformed, then it is EMAIL_TYPE_INVALID_EMAIL', () => {
    expect(formBody(z.object({ email: z.email() }), { email: 'not-an-email' })).toEqual({
      email: { _errors: [{ code: 'EMAIL_TYPE_INVALID_EMAIL', message: 'Not a well formed email address.' }] },
    });
  });

  it('when a value is not one of an enum, then it is BASE_TYPE_CHOICES listing the choices', () => {
    expect(formBody(z.object({ status: z.enum(['online', 'idle']) }), { status: 'away' })).toEqual({
      status: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: 'Value must be one of ("online", "idle").' }] },
    });
  });

  it('when a custom issue carries the platform code in params, then code and message pass through', () => {
    const schema = z.object({ password: z.string(), confirm: z.string() }).refine((v) => v.password === v.confirm, {
      path: ['confirm'],
      params: { code: 'PASSWORD_DOES_NOT_MATCH', message: 'Passwords do not match.' },
    });
    expect(formBody(schema, { password: 'a', confirm: 'b' })).toEqual({
      confirm: { _errors: [{ code: 'PASSWORD_DOES_NOT_MATCH', message: 'Passwords do not match.' }] },
    });
  });

  it('when a custom issue has no platform code, then it is BASE_TYPE_INVALID with the zod message', () => {
    const schema = z.object({ name: z.string().refine((v) => v !== 'everyone', 'reserved name') });
    expect(formBody(schema, { name: 'everyone' })).toEqual({
      name: { _errors: [{ code: 'BASE_TYPE_INVALID', message: 'reserved name' }] },
    });
  });

  it('when the body is not an object at all, then errors._errors holds DICT_TYPE_CONVERT', () => {
    const schema = z.object({ name: z.string() });
    for (const input of ['a string', 42, [1, 2]])
      expect(formBody(schema, input)).toEqual({
        _errors: [{ code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' }],
      });
  });

  it('when one field breaks several rules, then each is listed under it', () => {
    const schema = z.object({
      name: z
        .string()
        .min(5)
        .regex(/^[a-z]+$/),
    });
    const body = formBody(schema, { name: 'AB' }) as unknown as { name: { _errors: { code: string }[] } };
    expect(body.name._errors.map((e) => e.code)).toEqual(['BASE_TYPE_MIN_LENGTH', 'BASE_TYPE_INVALID']);
  });

  it('when an object is strict and gets unknown keys, then those keys are not reported as field errors', () => {
    const schema = z.strictObject({ name: z.string() });
    expect(formBody(schema, { name: 5, extra: 1 })).toEqual({
      name: { _errors: [{ code: 'BASE_TYPE_STRING', message: 'Could not interpret "5" as string.' }] },
    });
  });
});

describe('isStoreUnavailable', () => {
  it.each([
    ['too many connections (53300)', { code: '53300' }],
    ['out of memory (53200)', { code: '53200' }],
    ['admin shutdown (57P01)', { code: '57P01' }],
    ['cannot connect now (57P03)', { code: '57P03' }],
    ['connection failure (08006)', { code: '08006' }],
    ['a refused socket', { code: 'ECONNREFUSED' }],
    ['a reset socket', { code: 'ECONNRESET' }],
    ['a pool that waited too long', new Error('timeout exceeded when trying to connect')],
    ['a connection that died mid-query', new Error('Connection terminated unexpectedly')],
    [
      'Redis giving up on a command',
      Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' }),
    ],
  ])('when the error is %s, then the store is unavailable', (_label, err) => {
    expect(isStoreUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', { code: '23505' }],
    ['a deadlock (40P01), which is a bug to fix, not a moment to wait', { code: '40P01' }],
    ['a syntax error (42601)', { code: '42601' }],
    ['a plain Error', new Error('boom')],
    ['null', null],
    ['a string', 'ECONNREFUSED'],
  ])('when the error is %s, then it is not', (_label, err) => {
    expect(isStoreUnavailable(err)).toBe(false);
  });
});
