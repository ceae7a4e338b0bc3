import { ApiError, type ServiceImpl } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { ElevationGuard } from '../domain/mfa/elevation.js';
import type { SessionsService } from '../domain/sessions.service.js';
import type { SettingsService } from '../domain/settings.service.js';
import { sessionIdHash } from '../domain/tokens.js';
import type { PublicUserRow } from '../domain/ports.js';
import { privateUser } from '../domain/user.view.js';
import { isStorableId, type UserDirectory } from '../domain/users.service.js';

/** Proto3 `optional`: a null column is an unset field, not an empty string. */
const present = <K extends string, V>(key: K, value: V | null | undefined): Partial<Record<K, V>> =>
  value === null || value === undefined ? {} : ({ [key]: value } as Record<K, V>);

/** The contract's PartialUser of a row. */
const partial = (u: PublicUserRow) => ({
  id: u.id,
  username: u.username,
  discriminator: u.discriminator,
  ...present('globalName', u.global_name),
  ...present('avatar', u.avatar),
  publicFlags: BigInt(u.public_flags),
  bot: u.bot,
});

export function authGrpc(
  sessions: SessionsService,
  users: UserDirectory,
  settings: SettingsService,
  elevation: ElevationGuard,
): ServiceImpl<typeof AuthService> {
  return {
    async validateToken({ token, clientIp }) {
      const session = await sessions.validate(token, clientIp);
      if (!session) return { valid: false };
      return {
        valid: true,
        userId: session.user_id,
        sessionId: session.id,
        sessionIdHash: sessionIdHash(session.id),
        flags: session.flags,
        bot: session.bot,
      };
    },
    async getUsers({ userIds }) {
      return { users: (await users.publicUsers(userIds)).map(partial) };
    },
    async getCurrentUser({ userId }) {
      const row = await users.current(userId);
      const user = privateUser(row);
      return {
        user: {
          id: user.id,
          username: user.username,
          discriminator: user.discriminator,
          ...present('globalName', user.global_name),
          ...present('avatar', user.avatar),
          bio: user.bio,
          locale: user.locale,
          theme: row.theme === 'light' ? 'light' : 'dark',
          mfaEnabled: user.mfa_enabled,
          ...present('email', user.email),
          verified: user.verified,
          ...present('phone', user.phone),
          flags: row.flags,
          premiumType: user.premium_type,
          publicFlags: BigInt(row.public_flags),
          bot: user.bot,
          ...present('nsfwAllowed', user.nsfw_allowed),
        },
      };
    },
    async findUserByUsername({ username, discriminator }) {
      const row = await users.byUsername(username, discriminator);
      return row ? { user: partial(row) } : {};
    },
    async getFriendSourceFlags({ userId }) {
      const flags = isStorableId(userId)
        ? await settings.friendSourceFlags(userId)
        : { all: true, mutual_friends: true, mutual_guilds: true };
      return { all: flags.all, mutualFriends: flags.mutual_friends, mutualGuilds: flags.mutual_guilds };
    },
    async checkMfaElevation({ userId, elevationToken, sessionId }) {
      if (!isStorableId(userId)) throw ApiError.of('UNKNOWN_USER');
      await elevation.require(userId, { headers: [elevationToken], sessionId: sessionId || undefined });
      return {};
    },
  };
}
