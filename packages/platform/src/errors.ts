import type { z } from 'zod';

/** One entry of the platform's JSON error catalogue: the code, its usual status and message. */
interface CatalogueEntry {
  status: number;
  message: string;
}

/**
 * The platform's JSON error codes (shared/reference/errors-and-conventions.md). Services throw
 * `ApiError.of(code)`; the status and message come from here so they never drift apart.
 */
export const ERRORS = {
  UNKNOWN_APPLICATION: { code: 10002, status: 404, message: 'Unknown Application' },
  UNKNOWN_CHANNEL: { code: 10003, status: 404, message: 'Unknown Channel' },
  UNKNOWN_GUILD: { code: 10004, status: 404, message: 'Unknown Guild' },
  UNKNOWN_INTEGRATION: { code: 10005, status: 404, message: 'Unknown Integration' },
  UNKNOWN_INVITE: { code: 10006, status: 404, message: 'Unknown Invite' },
  UNKNOWN_MESSAGE: { code: 10008, status: 404, message: 'Unknown Message' },
  UNKNOWN_TOKEN: { code: 10012, status: 404, message: 'Unknown Token' },
  UNKNOWN_USER: { code: 10013, status: 404, message: 'Unknown User' },
  UNKNOWN_WEBHOOK: { code: 10015, status: 404, message: 'Unknown Webhook' },
  UNKNOWN_WEBHOOK_SERVICE: { code: 10016, status: 404, message: 'Unknown Webhook Service' },
  UNKNOWN_CONNECTION: { code: 10017, status: 404, message: 'Unknown Connection' },
  UNKNOWN_SESSION: { code: 10020, status: 404, message: 'Unknown Session' },
  UNKNOWN_PREMIUM_COOLDOWN: { code: 10050, status: 404, message: 'Unknown premium guild subscription cooldown' },
  ACCOUNT_SCHEDULED_FOR_DELETION: { code: 20011, status: 400, message: 'This account is scheduled for deletion.' },
  ACCOUNT_DISABLED: { code: 20013, status: 400, message: 'This account is disabled.' },
  PREMIUM_REQUIRED: { code: 20015, status: 403, message: 'This action requires a premium subscription.' },
  MAX_GUILDS: { code: 30001, status: 400, message: 'Maximum number of guilds reached (100)' },
  MAX_FRIENDS: { code: 30002, status: 400, message: 'Maximum number of friends reached (1000)' },
  MAX_WEBHOOKS: { code: 30007, status: 400, message: 'Maximum number of webhooks reached (15)' },
  MAX_INVITES: { code: 30016, status: 400, message: 'Maximum number of invites reached (1000)' },
  MAX_GUILD_WEBHOOKS: { code: 30058, status: 400, message: 'Maximum number of webhooks per guild reached (1000)' },
  UNAUTHORIZED_ACTION: { code: 40001, status: 401, message: 'Unauthorized. Provide a valid token and try again.' },
  REQUEST_TOO_LARGE: { code: 40005, status: 413, message: 'Request entity too large' },
  ACCOUNT_UNVERIFIED: { code: 40002, status: 403, message: 'You need to verify your account in order to perform this action.' },
  BANNED_FROM_GUILD: { code: 40007, status: 403, message: 'The user is banned from this guild.' },
  MISSING_ACCESS: { code: 50001, status: 403, message: 'Missing Access' },
  EMPTY_MESSAGE: { code: 50006, status: 400, message: 'Cannot send an empty message' },
  MISSING_PERMISSIONS: { code: 50013, status: 403, message: 'Missing Permissions' },
  INVALID_AUTH_TOKEN: { code: 50014, status: 401, message: 'Invalid authentication token provided' },
  PASSWORD_MISMATCH: { code: 50018, status: 400, message: 'Password does not match.' },
  INVALID_INVITE: { code: 50020, status: 400, message: 'Invite code is either invalid or taken.' },
  INVALID_WEBHOOK_TOKEN: { code: 50027, status: 401, message: 'Invalid Webhook Token' },
  INVALID_CHANNEL_TYPE: { code: 50024, status: 400, message: 'Cannot execute action on this channel type' },
  INVALID_FORM_BODY: { code: 50035, status: 400, message: 'Invalid Form Body' },
  SYSTEM_WEBHOOK: { code: 50073, status: 403, message: 'Cannot modify a system webhook' },
  THREAD_ARCHIVED: { code: 50083, status: 400, message: 'Thread is archived' },
  INVALID_JSON: { code: 50109, status: 400, message: 'The request body contains invalid JSON.' },
  MFA_ALREADY_ENABLED: { code: 60001, status: 400, message: 'This account is already enrolled in two-factor authentication' },
  MFA_NOT_ENABLED: { code: 60002, status: 400, message: 'This account is not enrolled in two-factor authentication' },
  MFA_REQUIRED: { code: 60003, status: 401, message: 'Two factor is required for this operation' },
  MFA_INVALID_SECRET: { code: 60005, status: 400, message: 'Invalid two-factor secret' },
  MFA_INVALID_TICKET: { code: 60006, status: 400, message: 'Invalid two-factor auth ticket' },
  MFA_INVALID_CODE: { code: 60008, status: 400, message: 'Invalid two-factor code' },
  MFA_INVALID_SESSION: { code: 60009, status: 400, message: 'Invalid two-factor session' },
  SMS_MFA_NOT_ENABLED: { code: 60010, status: 400, message: 'This account is not enrolled in SMS two-factor authentication' },
  SMS_MFA_UNAVAILABLE: { code: 60012, status: 400, message: 'SMS two-factor authentication cannot be enabled' },
  PHONE_VERIFICATION_REQUIRED: { code: 70007, status: 403, message: 'Phone verification is required to perform this action' },
  FRIEND_REQUESTS_DISABLED: { code: 80000, status: 400, message: 'Incoming friend requests disabled.' },
  FRIEND_REQUEST_BLOCKED: { code: 80001, status: 400, message: 'Friend request blocked.' },
  BOTS_CANNOT_HAVE_FRIENDS: { code: 80002, status: 400, message: 'Bots cannot have friends.' },
  FRIEND_REQUEST_SELF: { code: 80003, status: 400, message: 'Cannot send friend request to self.' },
  NO_SUCH_USERNAME: { code: 80004, status: 400, message: 'No users with that username exist.' },
  NO_INCOMING_REQUEST: { code: 80005, status: 400, message: 'No incoming friend request from that user.' },
  NOT_FRIENDS: { code: 80006, status: 400, message: 'You need to be friends in order to make this change.' },
  ALREADY_FRIENDS: { code: 80007, status: 400, message: 'You are already friends with that user.' },
  DISCRIMINATOR_REQUIRED: { code: 80008, status: 400, message: 'A discriminator is required.' },
  NO_COMMON_APPLICATION: { code: 80009, status: 400, message: 'Users have no common application authorization.' },
  STRANGER_REQUEST_UNCONFIRMED: { code: 80013, status: 400, message: 'You must confirm the friend request to accept it.' },
  FORUM_THREAD_REQUIRED: { code: 220001, status: 400, message: 'Webhooks posted to forum channels must have a thread_name or thread_id' },
  FORUM_THREAD_CONFLICT: {
    code: 220002,
    status: 400,
    message: 'Webhooks posted to forum channels cannot have both a thread_name and thread_id',
  },
  THREAD_NAME_OUTSIDE_FORUM: { code: 220003, status: 400, message: 'Webhooks can only create threads in forum channels' },
  SERVICE_IN_FORUM: { code: 220004, status: 400, message: 'Webhook services cannot be used in forum channels' },
} as const satisfies Record<string, CatalogueEntry & { code: number }>;

export type ErrorName = keyof typeof ERRORS;

/** A form error leaf: `{"_errors": [{code, message}]}`, nested under field names and array indexes. */
export interface FieldError {
  code: string;
  message: string;
}
export interface ErrorTree {
  _errors?: FieldError[];
  [key: string]: ErrorTree | FieldError[] | undefined;
}

/** The platform's JSON error body. */
export interface ErrorBody {
  code: number;
  message: string;
  errors?: ErrorTree;
  [extra: string]: unknown;
}

/** An error a client is meant to see: its HTTP status and the platform's body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
    this.name = 'ApiError';
  }

  static of(name: ErrorName, extra?: Omit<ErrorBody, 'code' | 'message'>): ApiError {
    const entry = ERRORS[name];
    return new ApiError(entry.status, { code: entry.code, message: entry.message, ...extra });
  }

  /** A 50035 with errors on the given fields (`"a.0.b"` paths), each with one code and message. */
  static form(fields: Record<string, FieldError>): ApiError {
    const tree: ErrorTree = {};
    for (const [path, error] of Object.entries(fields)) addFieldError(tree, path ? path.split('.') : [], error);
    return new ApiError(400, { code: 50035, message: 'Invalid Form Body', errors: tree });
  }

  static notFound(): ApiError {
    return new ApiError(404, { code: 0, message: '404: Not Found' });
  }
  static unauthorized(): ApiError {
    return new ApiError(401, { code: 0, message: '401: Unauthorized' });
  }
  static methodNotAllowed(): ApiError {
    return new ApiError(405, { code: 0, message: '405: Method Not Allowed' });
  }
}

/** A 50035 with one error at each path, field names and array indexes taken as they are. */
export function formErrorAt(entries: readonly { path: readonly (string | number)[]; error: FieldError }[]): ApiError {
  const tree: ErrorTree = {};
  for (const { path, error } of entries) addFieldError(tree, path, error);
  return new ApiError(400, { code: 50035, message: 'Invalid Form Body', errors: tree });
}

export const INTERNAL_ERROR_BODY: ErrorBody = Object.freeze({ code: 0, message: '500: Internal Server Error' });

function addFieldError(tree: ErrorTree, path: readonly (string | number)[], error: FieldError): void {
  let node = tree;
  for (const key of path) {
    const k = String(key);
    // Own keys only, defined rather than assigned: a client-chosen key such as "constructor" or
    // "__proto__" must not reach (and grow) a shared prototype object.
    const next = Object.hasOwn(node, k) ? node[k] : undefined;
    if (next === undefined || Array.isArray(next)) {
      const child: ErrorTree = {};
      Object.defineProperty(node, k, { value: child, enumerable: true, writable: true, configurable: true });
      node = child;
    } else node = next;
  }
  (node._errors ??= []).push(error);
}

/**
 * Zod issues → the platform's 50035 body. A schema can carry the platform's own code on a custom
 * issue (`params: { code, message }`); the common zod issues map to the BASE_TYPE_* codes.
 * Pass the parsed `input`: zod leaves the offending value out of its issues (unless parsed with
 * `reportInput`), and without it a wrong type cannot be told apart from a missing field.
 */
export function formErrorFromZod(error: z.ZodError, input?: unknown): ApiError {
  const tree: ErrorTree = {};
  for (const issue of error.issues) {
    const fieldError = fieldErrorOf(issue, 'input' in issue ? issue.input : valueAt(input, issue.path));
    if (fieldError) addFieldError(tree, issue.path as (string | number)[], fieldError);
  }
  return new ApiError(400, { code: 50035, message: 'Invalid Form Body', errors: tree });
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    // Own keys only: a missing field named like an Object.prototype member is still missing.
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function fieldErrorOf(issue: z.core.$ZodIssue, input: unknown): FieldError | undefined {
  switch (issue.code) {
    case 'custom': {
      const params = issue.params as Partial<FieldError> | undefined;
      return { code: params?.code ?? 'BASE_TYPE_INVALID', message: params?.message ?? issue.message };
    }
    case 'invalid_type':
      // The platform treats an explicit null for a non-nullable field as a missing one.
      if (input === undefined || input === null) return { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };
      return typeError(issue.expected, input);
    case 'too_small':
      if (issue.origin === 'string')
        return { code: 'BASE_TYPE_MIN_LENGTH', message: `Must be ${String(issue.minimum)} or more in length.` };
      if (issue.origin === 'array') return { code: 'BASE_TYPE_MIN_LENGTH', message: `Must be ${String(issue.minimum)} or more in length.` };
      return { code: 'NUMBER_TYPE_MIN', message: `int value should be greater than or equal to ${String(issue.minimum)}.` };
    case 'too_big':
      if (issue.origin === 'string' || issue.origin === 'array')
        return { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${String(issue.maximum)} or fewer in length.` };
      return { code: 'NUMBER_TYPE_MAX', message: `int value should be less than or equal to ${String(issue.maximum)}.` };
    case 'invalid_format':
      if (issue.format === 'email') return { code: 'EMAIL_TYPE_INVALID_EMAIL', message: 'Not a well formed email address.' };
      return { code: 'BASE_TYPE_INVALID', message: 'Invalid value.' };
    case 'invalid_value':
      return { code: 'BASE_TYPE_CHOICES', message: `Value must be one of (${issue.values.map((v) => JSON.stringify(v)).join(', ')}).` };
    case 'unrecognized_keys':
      return undefined;
    default:
      return { code: 'BASE_TYPE_INVALID', message: 'Invalid value.' };
  }
}

function typeError(expected: string, input: unknown): FieldError {
  const shown = typeof input === 'string' ? input : JSON.stringify(input);
  switch (expected) {
    case 'string':
      return { code: 'BASE_TYPE_STRING', message: 'Could not interpret "' + shown + '" as string.' };
    case 'boolean':
      return { code: 'BASE_TYPE_BAD_BOOLEAN', message: `Could not interpret "${shown}" as boolean.` };
    case 'number':
    case 'int':
    case 'bigint':
      return { code: 'BASE_TYPE_BAD_INT', message: `Value "${shown}" is not int.` };
    case 'object':
    case 'record':
      return { code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' };
    case 'array':
      return { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' };
    default:
      return { code: 'BASE_TYPE_INVALID', message: 'Invalid value.' };
  }
}

/**
 * More work than the process takes on at once (a bounded queue that is full, or a job that waited
 * its longest): the request did nothing wrong and may succeed later. A 503 whose Retry-After says
 * when; gRPC UNAVAILABLE.
 */
export class OverloadedError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
    this.name = 'OverloadedError';
  }
}

/**
 * PostgreSQL or Redis out of reach or out of capacity: too many connections (SQLSTATE class 53),
 * shutting down or starting up (57P01–57P03), a broken connection (class 08), a refused or reset
 * socket, a pool that could not hand out a connection in time, Redis giving up on a command. The
 * request did nothing wrong and may succeed in a moment, so it is a 503, not a 500.
 */
export function isStoreUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (/^(53\d{3}|57P0[123]|08\d{3})$/.test(code)) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH'].includes(code)) return true;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return message.startsWith('timeout exceeded when trying to connect') || message === 'Connection terminated unexpectedly';
}
