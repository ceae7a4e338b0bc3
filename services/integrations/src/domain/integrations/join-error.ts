import { ApiError, type ErrorName } from '@kith/platform';

/** Guilds' AddMember refusals, as the platform answers them. */
const JOIN_ERRORS: Record<number, ErrorName> = { 10004: 'UNKNOWN_GUILD', 40007: 'BANNED_FROM_GUILD', 30001: 'MAX_GUILDS' };

/** The platform's error for a join guilds refused with `code`; an unexpected code is a 400 carrying it and `message`. */
export function joinError(code: number, message: string): ApiError {
  const name = JOIN_ERRORS[code];
  return name ? ApiError.of(name) : new ApiError(400, { code, message });
}
