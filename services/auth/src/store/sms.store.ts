import type { Kysely, Transaction } from 'kysely';
import type { SmsAccountStore } from '../domain/mfa/ports.js';
import type { UserUpdates } from '../events/user.events.js';
import type { AuthDatabase } from './schema.js';

/**
 * The `users` columns of the SMS factor (phone, sms_mfa_enabled), each change one conditional
 * update whose USER_UPDATE commits with it.
 */
export class SqlSmsAccountStore implements SmsAccountStore {
  constructor(
    private readonly db: Kysely<AuthDatabase>,
    private readonly updates: UserUpdates,
  ) {}

  async setPhone(userId: string, phone: string): Promise<boolean> {
    try {
      return await this.changed(userId, (trx) => trx.updateTable('users').set({ phone }).where('id', '=', userId).executeTakeFirst());
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'users_phone_key') return false;
      throw err;
    }
  }

  removePhone(userId: string): Promise<boolean> {
    return this.changed(userId, (trx) =>
      trx.updateTable('users').set({ phone: null }).where('id', '=', userId).where('sms_mfa_enabled', '=', false).executeTakeFirst(),
    );
  }

  enableSms(userId: string): Promise<boolean> {
    return this.changed(userId, (trx) =>
      trx
        .updateTable('users')
        .set({ sms_mfa_enabled: true })
        .where('id', '=', userId)
        .where('mfa_enabled', '=', true)
        .where('phone', 'is not', null)
        .executeTakeFirst(),
    );
  }

  disableSms(userId: string): Promise<boolean> {
    return this.changed(userId, (trx) =>
      trx
        .updateTable('users')
        .set({ sms_mfa_enabled: false })
        .where('id', '=', userId)
        .where('sms_mfa_enabled', '=', true)
        .executeTakeFirst(),
    );
  }

  /** Runs one conditional update; when it changed the row, announces the user in the same transaction. */
  private changed(userId: string, update: (trx: Transaction<AuthDatabase>) => Promise<{ numUpdatedRows: bigint }>): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const { numUpdatedRows } = await update(trx);
      if (numUpdatedRows === 0n) return false;
      await this.updates.announce(trx, userId);
      return true;
    });
  }
}
