import type { Insertable, Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import type { AuthDatabase, SessionsTable } from './schema.js';

export type SessionRow = Selectable<SessionsTable>;
export type NewSession = Insertable<SessionsTable>;

/** A live session with the account fields token validation needs. */
export interface ActiveSession {
  id: string;
  user_id: string;
  last_used_at: Date;
  flags: string;
  bot: boolean;
}

export class SessionsStore {
  constructor(private readonly db: Kysely<AuthDatabase>) {}

  async insert(session: NewSession): Promise<void> {
    await this.db.insertInto('sessions').values(session).execute();
  }

  /** The unrevoked, unexpired session a token hash belongs to, if any. */
  findActiveByTokenHash(tokenHash: Buffer): Promise<ActiveSession | undefined> {
    return this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['sessions.id', 'sessions.user_id', 'sessions.last_used_at', 'users.flags', 'users.bot'])
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.revoked_at', 'is', null)
      .where('sessions.expires_at', '>', sql<Date>`now()`)
      .where('users.deleted_at', 'is', null)
      .where('users.disabled_at', 'is', null)
      .executeTakeFirst();
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

  /** Revokes the given sessions of one user; returns the ids actually revoked. */
  async revokeByHashes(userId: string, idHashes: string[]): Promise<string[]> {
    const rows = await this.db
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('user_id', '=', userId)
      .where('id_hash', 'in', idHashes)
      .where('revoked_at', 'is', null)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }

  async revoke(sessionId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked_at: sql`now()` })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
