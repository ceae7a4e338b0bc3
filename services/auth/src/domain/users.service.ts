import { ApiError } from '@kith/platform';
import type { PublicUserRow, UserRow, UsersPort } from './ports.js';

/** At most this many users per lookup: lists of a thousand (relationships) are the largest asked for. */
export const MAX_USERS_PER_LOOKUP = 1000;
/** At most this many ids per existence check (ids only: ten times a lookup's users). */
export const MAX_IDS_PER_EXISTENCE_CHECK = 10_000;
const MAX_BIGINT = 2n ** 63n - 1n;

/** Only ids the users table could hold: anything past a signed 64-bit integer would fail the whole query. */
export const isStorableId = (id: string): boolean => /^\d{1,19}$/.test(id) && BigInt(id) <= MAX_BIGINT;

/** Users as other services look them up: public objects by id or name, a user's own object. */
export class UserDirectory {
  constructor(private readonly users: Pick<UsersPort, 'findById' | 'findManyByIds' | 'findByUsername' | 'unknownIds'>) {}

  /** The ids no account has (unstorable ones included), each once, in the order asked; at most MAX_IDS_PER_EXISTENCE_CHECK. */
  async unknownIds(ids: string[]): Promise<string[]> {
    const distinct = [...new Set(ids)];
    if (distinct.length > MAX_IDS_PER_EXISTENCE_CHECK)
      throw ApiError.form({
        user_ids: { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_IDS_PER_EXISTENCE_CHECK} or fewer in length.` },
      });
    const unknown = new Set(await this.users.unknownIds(distinct.filter(isStorableId)));
    return distinct.filter((id) => !isStorableId(id) || unknown.has(id));
  }

  /** Public users by id; unknown and unstorable ids are left out. */
  publicUsers(ids: string[]): Promise<PublicUserRow[]> {
    return this.users.findManyByIds([...new Set(ids.filter(isStorableId))].slice(0, MAX_USERS_PER_LOOKUP));
  }

  /** The live account, or 10013. */
  async current(userId: string): Promise<UserRow> {
    const row = isStorableId(userId) ? await this.users.findById(userId) : undefined;
    if (!row || row.deleted_at !== null) throw ApiError.of('UNKNOWN_USER');
    return row;
  }

  /** A live account by username; a discriminator other than empty or "0" must match. */
  async byUsername(username: string, discriminator: string): Promise<PublicUserRow | undefined> {
    const row = username.length <= 64 ? await this.users.findByUsername(username) : undefined;
    const matches =
      row && row.deleted_at === null && (discriminator === '' || discriminator === '0' || discriminator === row.discriminator);
    return matches ? row : undefined;
  }
}
