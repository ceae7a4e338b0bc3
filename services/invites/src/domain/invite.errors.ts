import { ApiError, ERRORS } from '@kith/platform';

/** Platform errors this service answers that the shared catalogue does not hold. */
export const inviteErrors = {
  /** An invite to a DM, a category or a thread. */
  wrongChannelType: () => new ApiError(400, { code: 50024, message: 'Cannot execute action on this channel type' }),
  maxRecipients: () => new ApiError(400, { code: 30004, message: 'Maximum number of recipients reached (10)' }),
  unknownInvite: () => ApiError.of('UNKNOWN_INVITE'),
  field: (field: string, code: string, message: string) => ApiError.form({ [field]: { code, message } }),
};

/** A refusal another service answered with a code (guilds' AddMember, social's friendships) → our error. */
export function errorOfCode(code: number): ApiError {
  if (code === 30004) return inviteErrors.maxRecipients();
  const entry = Object.values(ERRORS).find((e) => e.code === code);
  if (entry) return new ApiError(entry.status, { code: entry.code, message: entry.message });
  return new ApiError(400, { code, message: 'Invite could not be accepted' });
}
