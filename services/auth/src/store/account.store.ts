import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { DuplicateUserError, type AccountPatch, type AccountWrites, type UniqueField, type UserRow } from '../domain/ports.js';
import type { UserUpdates } from '../events/user.events.js';
import type { AuthDatabase } from './schema.js';

const CONSTRAINT_FIELD: Record<string, UniqueField> = {
  users_username_key: 'username',
  users_email_key: 'email',
};

/** The writes of account changes: profile fields, credentials, disable, delete and restore. */
export class AccountStore implements AccountWrites {
  constructor(
    private readonly db: Kysely<AuthDatabase>,
    private readonly updates: UserUpdates,
  ) {}

  /**
   * Applies the patch and announces the user (USER_UPDATE) in the same transaction; a unique
   * collision (a race past the pre-check) becomes a DuplicateUserError.
   */
  async update(userId: string, patch: AccountPatch): Promise<UserRow> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const user = await trx.updateTable('users').set(patch).where('id', '=', userId).returningAll().executeTakeFirstOrThrow();
        await this.updates.announceRow(trx, user);
        return user;
      });
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      const field = e.code === '23505' && e.constraint ? CONSTRAINT_FIELD[e.constraint] : undefined;
      if (field) throw new DuplicateUserError([field]);
      throw err;
    }
  }

  /**
   * Sets the premium type billing reports; announces the user only when it changed. Undefined
   * when no such user exists.
   */
  async setPremiumType(userId: string, premiumType: number): Promise<boolean | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const user = await trx
        .updateTable('users')
        .set({ premium_type: premiumType })
        .where('id', '=', userId)
        .where('premium_type', '!=', premiumType)
        .returningAll()
        .executeTakeFirst();
      if (user) {
        await this.updates.announceRow(trx, user);
        return true;
      }
      const exists = await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
      return exists ? false : undefined;
    });
  }

  async disable(userId: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ disabled_at: sql`now()` })
      .where('id', '=', userId)
      .execute();
  }

  async scheduleDeletion(userId: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ deleted_at: sql`now()` })
      .where('id', '=', userId)
      .execute();
  }

  async restore(userId: string): Promise<void> {
    await this.db.updateTable('users').set({ disabled_at: null, deleted_at: null }).where('id', '=', userId).execute();
  }
}
