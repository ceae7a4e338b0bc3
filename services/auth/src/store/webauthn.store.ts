import type { ColumnType, Kysely } from 'kysely';
import type { CredentialRow, NewCredential, WebAuthnStorePort } from '../domain/mfa/ports.js';
import type { UserUpdates } from '../events/user.events.js';
import type { AuthDatabase } from './schema.js';

interface WebAuthnCredentialsTable {
  id: ColumnType<string, string, never>;
  user_id: ColumnType<string, string, never>;
  cred_id: string;
  public_key: Buffer;
  counter: ColumnType<string, string | number, string | number>;
  transports: string[];
  name: string;
  last_used: Date | null;
  created_at: ColumnType<Date, never, never>;
}

// A type alias, not an interface: Kysely's `withTables` wants an indexable record.
type WebAuthnTables = { webauthn_credentials: WebAuthnCredentialsTable };

const COLUMNS = ['id', 'user_id', 'cred_id', 'public_key', 'counter', 'transports', 'name', 'last_used'] as const;

const toRow = (r: Omit<CredentialRow, 'counter'> & { counter: string | number }): CredentialRow => ({
  ...r,
  id: String(r.id),
  user_id: String(r.user_id),
  counter: Number(r.counter),
});

/** The `webauthn_credentials` table and the `users.webauthn_enabled` flag kept beside it. */
export class WebAuthnStore implements WebAuthnStorePort {
  private readonly db: Kysely<AuthDatabase & WebAuthnTables>;

  constructor(
    db: Kysely<AuthDatabase>,
    private readonly updates: UserUpdates,
  ) {
    this.db = db.withTables<WebAuthnTables>();
  }

  async list(userId: string): Promise<CredentialRow[]> {
    const rows = await this.db.selectFrom('webauthn_credentials').select(COLUMNS).where('user_id', '=', userId).orderBy('id').execute();
    return rows.map(toRow);
  }

  async byCredId(credId: string): Promise<CredentialRow | undefined> {
    const row = await this.db.selectFrom('webauthn_credentials').select(COLUMNS).where('cred_id', '=', credId).executeTakeFirst();
    return row ? toRow(row) : undefined;
  }

  insert(c: NewCredential): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('webauthn_credentials')
        .values({
          id: c.id,
          user_id: c.userId,
          cred_id: c.credId,
          public_key: c.publicKey,
          counter: c.counter,
          transports: c.transports,
          name: c.name,
          last_used: null,
        })
        .onConflict((oc) => oc.column('cred_id').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return false;
      await trx.updateTable('users').set({ webauthn_enabled: true }).where('id', '=', c.userId).execute();
      // The user's authenticator_types may have changed.
      await this.updates.announce(trx, c.userId);
      return true;
    });
  }

  async rename(userId: string, id: string, name: string): Promise<CredentialRow | undefined> {
    const row = await this.db
      .updateTable('webauthn_credentials')
      .set({ name })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .returning(COLUMNS)
      .executeTakeFirst();
    return row ? toRow(row) : undefined;
  }

  remove(userId: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('webauthn_credentials').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      if (removed.numDeletedRows === 0n) return false;
      const left = await trx.selectFrom('webauthn_credentials').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst();
      if (!left) {
        await trx.updateTable('users').set({ webauthn_enabled: false }).where('id', '=', userId).execute();
        await this.updates.announce(trx, userId);
      }
      return true;
    });
  }

  async advance(id: string, from: number, to: number, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('webauthn_credentials')
      .set({ counter: to, last_used: at })
      .where('id', '=', id)
      .where('counter', '=', String(from))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
