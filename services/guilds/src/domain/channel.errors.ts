import { ApiError, type FieldError } from '@kith/platform';

/**
 * The platform's codes this part of the service answers that the shared catalogue does not list
 * (userdoccers `topics/errors`): limits, unknown targets and what a channel type cannot do.
 */
const entry = (status: number, code: number, message: string) => () => new ApiError(status, { code, message });

export const ChannelErrors = {
  unknownMember: entry(404, 10007, 'Unknown Member'),
  unknownRole: entry(404, 10011, 'Unknown Role'),
  maxRecipients: entry(400, 30004, 'Maximum number of recipients reached (10)'),
  maxGuildChannels: entry(400, 30013, 'Maximum number of guild channels reached (500)'),
  cannotMessageUser: entry(400, 50007, 'Cannot send messages to this user'),
  wrongChannelType: entry(400, 50024, 'Cannot execute action on this channel type'),
};

export const fieldError = (code: string, message: string): FieldError => ({ code, message });

/** A 50035 on one field. */
export const invalidField = (path: string, code: string, message: string): ApiError => ApiError.form({ [path]: fieldError(code, message) });
