import { ApiError } from '@kith/platform';

/**
 * The platform's guild error codes that the shared catalogue (platform/errors.ts) does not carry
 * yet; kept here so the guilds service can answer them without touching the shared package.
 */
export const guildErrors = {
  unknownMember: () => new ApiError(404, { code: 10007, message: 'Unknown Member' }),
  unknownRole: () => new ApiError(404, { code: 10011, message: 'Unknown Role' }),
  unknownBan: () => new ApiError(404, { code: 10026, message: 'Unknown Ban' }),
  maxRoles: () => new ApiError(400, { code: 30005, message: 'Maximum number of guild roles reached (250)' }),
  /** What the platform answers when the owner tries to leave their own guild. */
  ownerCannotLeave: () => new ApiError(400, { code: 50055, message: 'Invalid Guild' }),
};
