import type { Redis } from '@kith/platform';
import { sql, type Kysely } from 'kysely';
import type { TicketRecord, TicketStore } from '../domain/mfa/tickets.js';
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

/** A backup code as stored: its hash for lookups, its sealed form for viewing. */
export interface StoredBackupCode {
  hash: Buffer;
  sealed: string;
}

export interface BackupCodeRow {
  code_sealed: string;
  consumed: boolean;
}

/** TOTP enrollment and backup codes (the `user_totp` and `backup_codes` tables). */
export class MfaStore {
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

// HINCRBY on a key that just expired would recreate it without a TTL: count only while it lives.
const FAIL_SCRIPT = `if redis.call('exists', KEYS[1]) == 1 then return redis.call('hincrby', KEYS[1], 'attempts', 1) end return -1`;

/** MFA tickets in the service's Redis, by hash, expiring on their own. */
export class RedisTicketStore implements TicketStore {
  constructor(private readonly redis: Redis) {}

  async put(hash: string, record: TicketRecord, ttlSeconds: number): Promise<void> {
    const key = ticketKey(hash);
    await this.redis
      .multi()
      .hset(key, { record: JSON.stringify(record), attempts: 0 })
      .expire(key, ttlSeconds)
      .exec();
  }

  async get(hash: string): Promise<TicketRecord | undefined> {
    const record = await this.redis.hget(ticketKey(hash), 'record');
    return record ? (JSON.parse(record) as TicketRecord) : undefined;
  }

  async fail(hash: string): Promise<number> {
    const attempts = (await this.redis.eval(FAIL_SCRIPT, 1, ticketKey(hash))) as number;
    return attempts < 0 ? Number.MAX_SAFE_INTEGER : attempts;
  }

  async take(hash: string): Promise<boolean> {
    return (await this.redis.del(ticketKey(hash))) === 1;
  }
}

const ticketKey = (hash: string): string => `mfa:ticket:${hash}`;

/** The TOTP steps each user has already used, so a code works once per step. */
export class RedisTotpSteps {
  constructor(private readonly redis: Redis) {}

  /** True for the first claim of this user's step; it is remembered past the validation window. */
  async claim(userId: string, step: number, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(`mfa:totp-step:${userId}:${step}`, '1', 'EX', ttlSeconds, 'NX')) === 'OK';
  }
}
