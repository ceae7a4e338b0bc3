import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { DuplicateUserError, type UserRow } from '../domain/ports.js';
import type { RecoveryStorePort, RevertChanges } from '../domain/recovery/ports.js';
import type { UserUpdates } from '../events/user.events.js';
import type { AuthDatabase } from './schema.js';

// Type aliases, not interfaces: Kysely's `withTables` wants indexable records.
type RecoveryTables = {
  user_login_locations: { user_id: string; country: string };
  user_phone_history: { user_id: string; phone: string };
  phone_blacklist: { phone: string; user_id: string | null };
  user_totp: { user_id: string };
  backup_codes: { user_id: string };
};

type RecoveryDb = Kysely<AuthDatabase & RecoveryTables>;

/** Known login locations, phone history and blacklist, and the revert's one transaction. */
export class RecoveryStore implements RecoveryStorePort {
  private readonly db: RecoveryDb;

  constructor(
    db: Kysely<AuthDatabase>,
    private readonly updates: UserUpdates,
  ) {
    this.db = db.withTables<RecoveryTables>();
  }

  async knowsLocation(userId: string, country: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('user_login_locations')
      .select('country')
      .where('user_id', '=', userId)
      .where('country', '=', country)
      .executeTakeFirst();
    return row !== undefined;
  }

  async addLocation(userId: string, country: string): Promise<void> {
    await this.db
      .insertInto('user_login_locations')
      .values({ user_id: userId, country })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async isBlacklisted(phone: string): Promise<boolean> {
    const row = await this.db.selectFrom('phone_blacklist').select('phone').where('phone', '=', phone).executeTakeFirst();
    return row !== undefined;
  }

  async setPassword(userId: string, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  /**
   * Restores the email, sets the password, removes MFA and every phone (blacklisting each number
   * the account ever had), all or nothing. The original email taken by another account since is a
   * DuplicateUserError.
   */
  revert(userId: string, changes: RevertChanges): Promise<UserRow> {
    return this.db.transaction().execute(async (trx) => {
      const phones = await trx.selectFrom('user_phone_history').select('phone').where('user_id', '=', userId).execute();
      let user: UserRow;
      try {
        user = await trx
          .updateTable('users')
          .set({
            email: changes.email,
            password_hash: changes.passwordHash,
            mfa_enabled: false,
            sms_mfa_enabled: false,
            webauthn_enabled: false,
            phone: null,
          })
          .where('id', '=', userId)
          .returningAll()
          .executeTakeFirstOrThrow();
      } catch (err) {
        const e = err as { code?: string; constraint?: string };
        if (e.code === '23505' && e.constraint === 'users_email_key') throw new DuplicateUserError(['email']);
        throw err;
      }
      await trx.deleteFrom('user_totp').where('user_id', '=', userId).execute();
      await trx.deleteFrom('backup_codes').where('user_id', '=', userId).execute();
      // Every passkey goes too: one an intruder added must not outlive the revert.
      await sql`DELETE FROM webauthn_credentials WHERE user_id = ${userId}`.execute(trx);
      if (phones.length)
        await trx
          .insertInto('phone_blacklist')
          .values(phones.map((p) => ({ phone: p.phone, user_id: userId })))
          .onConflict((oc) => oc.doNothing())
          .execute();
      await this.updates.announceRow(trx, user);
      return user;
    });
  }

  /** Whether the original email now belongs to another account (the revert then fails). */
  async emailTakenByOther(email: string, userId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('id')
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .where('id', '!=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
