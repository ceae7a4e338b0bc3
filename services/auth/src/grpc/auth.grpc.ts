import { ApiError, type ServiceImpl } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { ElevationGuard } from '../domain/mfa/elevation.js';
import type { SessionsService } from '../domain/sessions.service.js';
import type { SettingsService } from '../domain/settings.service.js';
import { sessionIdHash } from '../domain/tokens.js';
import { privateUser } from '../domain/user.view.js';
import type { PublicUserRow, UsersStore } from '../store/users.store.js';

const MAX_USERS_PER_CALL = 1000;
const MAX_BIGINT = 2n ** 63n - 1n;

/** Only ids the users table could hold: anything past PostgreSQL's bigint would fail the whole query. */
const isStorableId = (id: string): boolean => /^\d{1,19}$/.test(id) && BigInt(id) <= MAX_BIGINT;

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
  users: UsersStore,
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
      const ids = [...new Set(userIds.filter(isStorableId))].slice(0, MAX_USERS_PER_CALL);
      const rows = await users.findManyByIds(ids);
      return { users: rows.map(partial) };
    },
    async getCurrentUser({ userId }) {
      const row = isStorableId(userId) ? await users.findById(userId) : undefined;
      if (!row || row.deleted_at !== null) throw ApiError.of('UNKNOWN_USER');
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
      const row = username.length <= 64 ? await users.findByUsername(username) : undefined;
      const matches =
        row && row.deleted_at === null && (discriminator === '' || discriminator === '0' || discriminator === row.discriminator);
      return matches ? { user: partial(row) } : {};
    },
    async getFriendSourceFlags({ userId }) {
      const flags = isStorableId(userId)
        ? await settings.friendSourceFlags(userId)
        : { all: true, mutual_friends: true, mutual_guilds: true };
      return { all: flags.all, mutualFriends: flags.mutual_friends, mutualGuilds: flags.mutual_guilds };
    },
    async checkMfaElevation({ userId, elevationToken }) {
      if (!isStorableId(userId)) throw ApiError.of('UNKNOWN_USER');
      await elevation.require(userId, { headers: [elevationToken] });
      return {};
    },
  };
}
