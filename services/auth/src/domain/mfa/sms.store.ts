import type { Kysely } from 'kysely';
import type { AuthDatabase } from '../../store/schema.js';

/** What the SMS factor changes on the account: the phone and whether SMS codes count as a factor. */
export interface SmsAccountStore {
  /** Sets the phone; false when another account has the number. */
  setPhone(userId: string, phone: string): Promise<boolean>;
  /** Removes the phone unless SMS MFA is on; false when it is on. */
  removePhone(userId: string): Promise<boolean>;
  /** Turns SMS MFA on when TOTP is on and a phone is set; false otherwise. */
  enableSms(userId: string): Promise<boolean>;
  /** Turns SMS MFA off; false when it was off. */
  disableSms(userId: string): Promise<boolean>;
}

/** The `users` columns of the SMS factor (phone, sms_mfa_enabled), each change one conditional update. */
export class SqlSmsAccountStore implements SmsAccountStore {
  constructor(private readonly db: Kysely<AuthDatabase>) {}

  async setPhone(userId: string, phone: string): Promise<boolean> {
    try {
      await this.db.updateTable('users').set({ phone }).where('id', '=', userId).execute();
      return true;
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'users_phone_key') return false;
      throw err;
    }
  }

  async removePhone(userId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ phone: null })
      .where('id', '=', userId)
      .where('sms_mfa_enabled', '=', false)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async enableSms(userId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ sms_mfa_enabled: true })
      .where('id', '=', userId)
      .where('mfa_enabled', '=', true)
      .where('phone', 'is not', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async disableSms(userId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ sms_mfa_enabled: false })
      .where('id', '=', userId)
      .where('sms_mfa_enabled', '=', true)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
