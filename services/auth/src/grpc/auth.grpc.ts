import { ApiError, type ServiceImpl } from '@kith/platform';
import { StandingAction, type AuthService } from '@kith/proto/auth/v1/auth';
import type { ContactsService } from '../domain/contacts.service.js';
import type { DevicesService } from '../domain/devices.service.js';
import type { BotTokens, BotUsers } from '../domain/bots.service.js';
import type { ElevationGuard } from '../domain/mfa/elevation.js';
import type { OperatorAction, StandingService } from '../domain/standing/standing.service.js';
import type { SessionsService } from '../domain/sessions.service.js';
import type { SettingsService } from '../domain/settings.service.js';
import { sessionIdHash } from '../domain/tokens.js';
import { contractUser, currentUser } from '../domain/user.view.js';
import { isStorableId, type UserDirectory } from '../domain/users.service.js';

/** StandingAction (auth.proto) → what the domain does. */
const OPERATOR_ACTIONS: Partial<Record<StandingAction, OperatorAction>> = {
  [StandingAction.SUSPEND]: 'suspend',
  [StandingAction.FLAG_SUSPICIOUS]: 'flag_suspicious',
  [StandingAction.REQUIRE_PASSWORD_UPDATE]: 'require_password_update',
  [StandingAction.LIFT]: 'lift',
};

export function authGrpc(
  sessions: SessionsService,
  users: UserDirectory,
  settings: SettingsService,
  elevation: ElevationGuard,
  devices: DevicesService,
  standing: StandingService,
  bots: { users: BotUsers; tokens: BotTokens },
  premium: { setPremiumType(userId: string, premiumType: number): Promise<boolean | undefined> },
  contacts: ContactsService,
): ServiceImpl<typeof AuthService> {
  return {
    async findUsersByContacts({ userId, contacts: list }) {
      if (!isStorableId(userId)) return { userIds: [] };
      return { userIds: await contacts.find(userId, list) };
    },
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
      return { users: (await users.publicUsers(userIds)).map(contractUser) };
    },
    async getCurrentUser({ userId }) {
      return { user: currentUser(await users.current(userId)) };
    },
    async findUserByUsername({ username, discriminator }) {
      const row = await users.byUsername(username, discriminator);
      return row ? { user: contractUser(row) } : {};
    },
    async getFriendSourceFlags({ userId }) {
      const flags = isStorableId(userId)
        ? await settings.friendSourceFlags(userId)
        : { all: true, mutual_friends: true, mutual_guilds: true };
      return { all: flags.all, mutualFriends: flags.mutual_friends, mutualGuilds: flags.mutual_guilds };
    },
    async setPremiumType({ userId, premiumType }) {
      if (!isStorableId(userId)) throw ApiError.of('UNKNOWN_USER');
      if (!Number.isInteger(premiumType) || premiumType < 0 || premiumType > 3)
        throw ApiError.form({ premium_type: { code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (0, 1, 2, 3).' } });
      const changed = await premium.setPremiumType(userId, premiumType);
      if (changed === undefined) throw ApiError.of('UNKNOWN_USER');
      return { changed };
    },
    async checkMfaElevation({ userId, elevationToken, sessionId }) {
      if (!isStorableId(userId)) throw ApiError.of('UNKNOWN_USER');
      await elevation.require(userId, { headers: [elevationToken], sessionId: sessionId || undefined });
      return {};
    },
    async setAccountStanding({ userId, action, reason }) {
      const chosen = OPERATOR_ACTIONS[action];
      if (!chosen) throw ApiError.form({ action: { code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (1, 2, 3, 4).' } });
      if (!isStorableId(userId)) throw ApiError.of('UNKNOWN_USER');
      return { sessionsEnded: await standing.apply(userId, chosen, reason) };
    },
    async listPushDevices({ userId }) {
      if (!isStorableId(userId)) return { devices: [] };
      return {
        devices: (await devices.list(userId)).map((d) => ({
          provider: d.provider,
          token: d.token,
          sessionIdHash: sessionIdHash(d.sessionId),
          bundleId: d.bundleId ?? undefined,
        })),
      };
    },
    async createBotUser({ username }) {
      if (username.length > 1000)
        throw ApiError.form({ username: { code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 32 or fewer in length.' } });
      return { user: contractUser(await bots.users.create(username)) };
    },
    async resetBotToken({ userId }) {
      if (!isStorableId(userId)) throw ApiError.of('UNKNOWN_USER');
      return { token: await bots.tokens.reset(userId) };
    },
  };
}
