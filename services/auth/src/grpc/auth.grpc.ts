import type { ServiceImpl } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { SessionsService } from '../domain/sessions.service.js';
import type { UsersStore } from '../store/users.store.js';

const MAX_USERS_PER_CALL = 1000;
const MAX_BIGINT = 2n ** 63n - 1n;

/** Only ids the users table could hold: anything past PostgreSQL's bigint would fail the whole query. */
const isStorableId = (id: string): boolean => /^\d{1,19}$/.test(id) && BigInt(id) <= MAX_BIGINT;

export function authGrpc(sessions: SessionsService, users: UsersStore): ServiceImpl<typeof AuthService> {
  return {
    async validateToken({ token, clientIp }) {
      const session = await sessions.validate(token, clientIp);
      if (!session) return { valid: false };
      return { valid: true, userId: session.user_id, sessionId: session.id, flags: session.flags, bot: session.bot };
    },
    async getUsers({ userIds }) {
      const ids = [...new Set(userIds.filter(isStorableId))].slice(0, MAX_USERS_PER_CALL);
      const rows = await users.findManyByIds(ids);
      return {
        users: rows.map((u) => ({
          id: u.id,
          username: u.username,
          discriminator: u.discriminator,
          ...(u.global_name !== null ? { globalName: u.global_name } : {}),
          ...(u.avatar !== null ? { avatar: u.avatar } : {}),
          publicFlags: BigInt(u.public_flags),
          bot: u.bot,
        })),
      };
    },
  };
}
