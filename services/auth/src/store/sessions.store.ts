import type { DomainEvent, Outbox } from '@kith/platform';
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type {
  ActiveSession,
  KnownSources,
  NewSession,
  RevokedSession,
  SessionRow,
  SessionsPort,
  SessionsTransaction,
} from '../domain/ports.js';
import type { AuthDatabase } from './schema.js';

export class SessionsStore implements SessionsPort {
  constructor(
    private readonly db: Kysely<AuthDatabase>,
    private readonly outbox: Outbox,
  ) {}

  /** Runs `work` in one transaction: its revocations and its events commit together or not at all. */
  transaction<T>(work: (tx: SessionsTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new SessionsWriter(trx, this.outbox)));
  }

  /** One statement: the session, and its source made (or kept) known for the account. */
  async insert(session: NewSession, source: string): Promise<void> {
    await this.db
      .with('s', (db) => db.insertInto('sessions').values(session).returning('user_id'))
      .insertInto('user_login_sources')
      .columns(['user_id', 'source', 'last_seen_at'])
      .expression((eb) => eb.selectFrom('s').select(['s.user_id', eb.val(source).as('source'), sql<Date>`now()`.as('last_seen_at')]))
      .onConflict((oc) => oc.columns(['user_id', 'source']).doUpdateSet({ last_seen_at: sql<Date>`now()` }))
      .execute();
  }

  /** The unrevoked, unexpired session a token hash belongs to, of an account in good standing, if any. */
  findActiveByTokenHash(tokenHash: Buffer): Promise<ActiveSession | undefined> {
    return (
      this.db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['sessions.id', 'sessions.user_id', 'sessions.last_used_at', 'users.flags', 'users.bot'])
        .where('sessions.token_hash', '=', tokenHash)
        .where('sessions.revoked_at', 'is', null)
        .where('sessions.expires_at', '>', sql<Date>`now()`)
        .where('users.deleted_at', 'is', null)
        .where('users.disabled_at', 'is', null)
        // A suspended or locked account's tokens open nothing, however they were issued.
        .where('users.suspended_at', 'is', null)
        .where('users.locked_at', 'is', null)
        .executeTakeFirst()
    );
  }

  /** Records use: last-used time slides the idle expiry forward. */
  async touch(id: string, at: Date, expiresAt: Date, clientIp: string | null): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ last_used_at: at, expires_at: expiresAt, ...(clientIp ? { client_ip: clientIp } : {}) })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  listActive(userId: string, limit: number): Promise<SessionRow[]> {
    return this.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .orderBy('last_used_at', 'desc')
      .limit(limit)
      .execute();
  }
}

/** A place stops counting as known after this long without a session from it. */
const SOURCE_MEMORY = '180 days';

/** The sources sessions were created from (user_login_sources). */
export class PgKnownSources implements KnownSources {
  constructor(private readonly db: Kysely<AuthDatabase>) {}

  async knows(userId: string, source: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('user_login_sources')
      .select('source')
      .where('user_id', '=', userId)
      .where('source', '=', source)
      .where('last_seen_at', '>', sql<Date>`now() - ${SOURCE_MEMORY}::interval`)
      .executeTakeFirst();
    return row !== undefined;
  }

  async forgetAllBut(userId: string, keep: string): Promise<void> {
    await this.db.deleteFrom('user_login_sources').where('user_id', '=', userId).where('source', '!=', keep).execute();
  }
}

/** Session writes inside one transaction (also taken by other stores whose change ends sessions with it). */
export class SessionsWriter implements SessionsTransaction {
  constructor(
    private readonly trx: Transaction<AuthDatabase>,
    private readonly outbox: Outbox,
  ) {}

  async revokeByHashes(userId: string, idHashes: string[]): Promise<RevokedSession[]> {
    if (idHashes.length === 0) return [];
    return this.trx
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('user_id', '=', userId)
      .where('id_hash', 'in', idHashes)
      .where('revoked_at', 'is', null)
      .returning(['id', 'id_hash'])
      .execute();
  }

  revoke(sessionId: string): Promise<RevokedSession | undefined> {
    return this.trx
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .returning(['id', 'id_hash'])
      .executeTakeFirst();
  }

  async revokeAllOf(userId: string): Promise<RevokedSession[]> {
    // The user's row is the lock that orders concurrent resets: the second revokes the first's token.
    await this.trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
    return this.trx
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .returning(['id', 'id_hash'])
      .execute();
  }

  async insert(session: NewSession): Promise<void> {
    await this.trx.insertInto('sessions').values(session).execute();
  }

  async forgetPushTokens(userId: string, tokens: { provider: string; token: string }[]): Promise<void> {
    if (tokens.length === 0) return;
    await this.trx
      .deleteFrom('push_devices')
      .where('user_id', '=', userId)
      .where((eb) => eb.or(tokens.map((t) => eb.and([eb('provider', '=', t.provider), eb('token', '=', t.token)]))))
      .execute();
  }

  async enqueue(events: DomainEvent[]): Promise<void> {
    await this.outbox.enqueue(this.trx, events);
  }
}
