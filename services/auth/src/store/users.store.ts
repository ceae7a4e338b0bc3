import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import {
  DuplicateBotTagError,
  DuplicateIdError,
  DuplicateUserError,
  type NewUser,
  type PublicUserRow,
  type UniqueField,
  type UserRow,
  type UsersPort,
} from '../domain/ports.js';
import type { AuthDatabase } from './schema.js';

const PUBLIC_COLUMNS = ['id', 'username', 'discriminator', 'global_name', 'avatar', 'public_flags', 'bot', 'bio'] as const;

const CONSTRAINT_FIELD: Record<string, UniqueField> = {
  users_username_key: 'username',
  users_email_key: 'email',
  users_phone_key: 'phone',
};

export class UsersStore implements UsersPort {
  constructor(private readonly db: Kysely<AuthDatabase>) {}

  /** Inserts a user; a collision on username, email or phone becomes a DuplicateUserError, on the id a DuplicateIdError. */
  async insert(user: NewUser): Promise<UserRow> {
    try {
      return await this.db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'users_pkey') throw new DuplicateIdError();
      if (e.code === '23505' && e.constraint === 'users_bot_tag_key') throw new DuplicateBotTagError();
      const field = e.code === '23505' && e.constraint ? CONSTRAINT_FIELD[e.constraint] : undefined;
      if (field) throw new DuplicateUserError([field]);
      throw err;
    }
  }

  /** Which of these unique values are already taken (case-insensitive for username and email). */
  async taken(values: { username?: string | undefined; email?: string | undefined }): Promise<UniqueField[]> {
    const fields: UniqueField[] = [];
    if (values.username) {
      const row = await this.db
        .selectFrom('users')
        .select('id')
        .where(sql`lower(username)`, '=', values.username.toLowerCase())
        .where('bot', '=', false)
        .executeTakeFirst();
      if (row) fields.push('username');
    }
    if (values.email) {
      const row = await this.db
        .selectFrom('users')
        .select('id')
        .where(sql`lower(email)`, '=', values.email.toLowerCase())
        .executeTakeFirst();
      if (row) fields.push('email');
    }
    return fields;
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Only the public columns: lists of a thousand users are read on hot paths (relationships). */
  async unknownIds(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    // One array parameter, however many ids: no statement with thousands of placeholders.
    const { rows } = await sql<{ id: string }>`
      SELECT u.id::text AS id FROM unnest(${ids}::bigint[]) WITH ORDINALITY AS u (id, n)
      WHERE NOT EXISTS (SELECT 1 FROM users WHERE users.id = u.id) ORDER BY u.n`.execute(this.db);
    return rows.map((r) => r.id);
  }

  findManyByIds(ids: string[]): Promise<PublicUserRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('users').select(PUBLIC_COLUMNS).where('id', 'in', ids).execute();
  }

  /** A person by username: bots share names (their discriminators tell them apart) and are not found by one. */
  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(username)`, '=', username.toLowerCase())
      .where('bot', '=', false)
      .executeTakeFirst();
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst();
  }

  findByPhone(phone: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('phone', '=', phone).executeTakeFirst();
  }
}
