import type { NewUser, PublicUserRow, UniqueField, UserRow, UsersPort } from '../../src/domain/ports.js';

/** A complete account as the store would return it; overrides replace fields. */
export function userRow(overrides: Partial<UserRow> = {}): UserRow {
  return {
    id: '100',
    username: 'alice',
    discriminator: '0',
    global_name: null,
    email: 'alice@example.com',
    phone: null,
    password_hash: null,
    date_of_birth: '1990-01-01',
    avatar: null,
    bio: '',
    locale: 'en-US',
    theme: 'dark',
    flags: '0',
    public_flags: '0',
    verified: true,
    bot: false,
    mfa_enabled: false,
    sms_mfa_enabled: false,
    webauthn_enabled: false,
    premium_type: 0,
    promotional_email_opt_in: false,
    friend_source_flags: { all: true, mutual_friends: true, mutual_guilds: true },
    created_at: new Date('2024-01-01T00:00:00Z'),
    disabled_at: null,
    deleted_at: null,
    ...overrides,
  };
}

/** Accounts in memory, compared case-insensitively where PostgreSQL's indexes are. */
export class MemoryUsers implements UsersPort {
  readonly rows: UserRow[] = [];

  constructor(...rows: UserRow[]) {
    this.rows.push(...rows);
  }

  insert(user: NewUser): Promise<UserRow> {
    const row = userRow({ ...user });
    this.rows.push(row);
    return Promise.resolve(row);
  }

  taken(values: { username?: string | undefined; email?: string | undefined }): Promise<UniqueField[]> {
    const same = (a: string | null, b: string | undefined) => b !== undefined && a?.toLowerCase() === b.toLowerCase();
    const fields: UniqueField[] = [];
    if (this.rows.some((u) => same(u.username, values.username))) fields.push('username');
    if (this.rows.some((u) => same(u.email, values.email))) fields.push('email');
    return Promise.resolve(fields);
  }

  findById(id: string): Promise<UserRow | undefined> {
    return Promise.resolve(this.rows.find((u) => u.id === id));
  }

  findManyByIds(ids: string[]): Promise<PublicUserRow[]> {
    return Promise.resolve(this.rows.filter((u) => ids.includes(u.id)));
  }

  unknownIds(ids: string[]): Promise<string[]> {
    return Promise.resolve(ids.filter((id) => !this.rows.some((u) => u.id === id)));
  }

  findByUsername(username: string): Promise<UserRow | undefined> {
    return Promise.resolve(this.rows.find((u) => u.username.toLowerCase() === username.toLowerCase()));
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return Promise.resolve(this.rows.find((u) => u.email?.toLowerCase() === email.toLowerCase()));
  }

  findByPhone(phone: string): Promise<UserRow | undefined> {
    return Promise.resolve(this.rows.find((u) => u.phone === phone));
  }
}
