import { sql, type Kysely } from 'kysely';
import type { BackupCodeRow, MfaStorePort, StoredBackupCode } from '../domain/mfa/ports.js';
import type { UserUpdates } from '../events/user.events.js';
import type { AuthDatabase } from './schema.js';

type MfaDb = Kysely<AuthDatabase & MfaTables>;

interface UserTotpTable {
  user_id: string;
  secret: string;
}

interface BackupCodesTable {
  user_id: string;
  position: number;
  code_hash: Buffer;
  code_sealed: string;
  consumed: boolean;
}

// A type alias, not an interface: Kysely's `withTables` wants an indexable record.
type MfaTables = {
  user_totp: UserTotpTable;
  backup_codes: BackupCodesTable;
};

/** TOTP enrollment and backup codes (the `user_totp` and `backup_codes` tables). */
export class MfaStore implements MfaStorePort {
  private readonly db: MfaDb;

  constructor(
    db: Kysely<AuthDatabase>,
    private readonly updates: UserUpdates,
  ) {
    this.db = db.withTables<MfaTables>();
  }

  async totpSecret(userId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('user_totp').select('secret').where('user_id', '=', userId).executeTakeFirst();
    return row?.secret;
  }

  /** Enrolls the user; false when another request enrolled it first. */
  enableTotp(userId: string, secret: string, codes: StoredBackupCode[]): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('users')
        .set({ mfa_enabled: true })
        .where('id', '=', userId)
        .where('mfa_enabled', '=', false)
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) return false;
      await trx.insertInto('user_totp').values({ user_id: userId, secret }).execute();
      await insertCodes(trx, userId, codes);
      await this.updates.announce(trx, userId);
      return true;
    });
  }

  /** Removes TOTP and the backup codes; false when the user had no TOTP. */
  disableTotp(userId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('user_totp').where('user_id', '=', userId).executeTakeFirst();
      if (removed.numDeletedRows === 0n) return false;
      await trx.deleteFrom('backup_codes').where('user_id', '=', userId).execute();
      // WebAuthn credentials are a second factor beside TOTP (migration 0007): they go with it.
      await sql`DELETE FROM webauthn_credentials WHERE user_id = ${userId}`.execute(trx);
      await trx
        .updateTable('users')
        .set({ mfa_enabled: false, sms_mfa_enabled: false, webauthn_enabled: false })
        .where('id', '=', userId)
        .execute();
      await this.updates.announce(trx, userId);
      return true;
    });
  }

  backupCodes(userId: string): Promise<BackupCodeRow[]> {
    return this.db
      .selectFrom('backup_codes')
      .select(['code_sealed', 'consumed'])
      .where('user_id', '=', userId)
      .orderBy('position')
      .execute();
  }

  replaceBackupCodes(userId: string, codes: StoredBackupCode[]): Promise<void> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('backup_codes').where('user_id', '=', userId).execute();
      await insertCodes(trx, userId, codes);
    });
  }

  /** Marks an unused code used; false when no such unused code exists (single use, race-safe). */
  async consumeBackupCode(userId: string, hash: Buffer): Promise<boolean> {
    const result = await this.db
      .updateTable('backup_codes')
      .set({ consumed: true })
      .where('user_id', '=', userId)
      .where('code_hash', '=', hash)
      .where('consumed', '=', false)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

async function insertCodes(db: MfaDb, userId: string, codes: StoredBackupCode[]): Promise<void> {
  if (codes.length === 0) return;
  await db
    .insertInto('backup_codes')
    .values(codes.map((c, position) => ({ user_id: userId, position, code_hash: c.hash, code_sealed: c.sealed, consumed: false })))
    .execute();
}
