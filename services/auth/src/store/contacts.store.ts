import { sql, type Kysely } from 'kysely';
import { FIND_BY_EMAIL, FIND_BY_PHONE, type ContactsPort } from '../domain/contacts.service.js';
import type { AuthDatabase } from './schema.js';

/** Contact sync's reads of the users table; the unique phone and lower(email) indexes serve them. */
export class ContactsStore implements ContactsPort {
  constructor(private readonly db: Kysely<AuthDatabase>) {}

  async phoneOf(userId: string): Promise<string | null> {
    const row = await this.db.selectFrom('users').select('phone').where('id', '=', userId).executeTakeFirst();
    return row?.phone ?? null;
  }

  async findable(callerId: string, phones: readonly string[], emails: readonly string[]): Promise<string[]> {
    const byPhone = phones.length > 0 ? sql`(phone = ANY(${[...phones]}) AND friend_discovery_flags & ${FIND_BY_PHONE} <> 0)` : sql`false`;
    const byEmail =
      emails.length > 0
        ? sql`(verified AND lower(email) = ANY(${[...emails]}) AND friend_discovery_flags & ${FIND_BY_EMAIL} <> 0)`
        : sql`false`;
    const { rows } = await sql<{ id: string }>`
      SELECT id FROM users
      WHERE id <> ${callerId} AND NOT bot AND deleted_at IS NULL AND disabled_at IS NULL AND (${byPhone} OR ${byEmail})
      ORDER BY id`.execute(this.db);
    return rows.map((r) => String(r.id));
  }
}
