import { ApiError, type FieldError } from '@kith/platform';

/**
 * The platform's codes this service answers that the shared catalogue (platform/errors.ts) does
 * not list yet (userdoccers `topics/errors`): unknown targets, limits and what a channel type
 * cannot do. One catalogue for guilds, members, roles and channels.
 */
const entry = (status: number, code: number, message: string) => () => new ApiError(status, { code, message });

export const guildErrors = {
  unknownMember: entry(404, 10007, 'Unknown Member'),
  unknownRole: entry(404, 10011, 'Unknown Role'),
  unknownBan: entry(404, 10026, 'Unknown Ban'),
  unknownVerificationForm: entry(404, 10068, 'Unknown Guild Member Verification Form'),
  maxRecipients: entry(400, 30004, 'Maximum number of recipients reached (10)'),
  maxRoles: entry(400, 30005, 'Maximum number of guild roles reached (250)'),
  maxGuildChannels: entry(400, 30013, 'Maximum number of guild channels reached (500)'),
  cannotMessageUser: entry(400, 50007, 'Cannot send messages to this user'),
  wrongChannelType: entry(400, 50024, 'Cannot execute action on this channel type'),
  /** What the platform answers when the owner tries to leave their own guild. */
  ownerCannotLeave: entry(400, 50055, 'Invalid Guild'),
};

export const fieldError = (code: string, message: string): FieldError => ({ code, message });

/** A 50035 on one field. */
export const invalidField = (path: string, code: string, message: string): ApiError => ApiError.form({ [path]: fieldError(code, message) });
