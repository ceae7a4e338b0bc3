import { ApiError, SnowflakeGenerator } from '@kith/platform';
import { beforeEach, describe, expect, it } from 'vitest';
import { AccountsService } from './accounts.service.js';
import type { PasswordHasher } from './passwords.js';
import type { SessionsService } from './sessions.service.js';
import { DuplicateIdError, DuplicateUserError, type NewUser, type UniqueField, type UserRow, type UsersPort } from './ports.js';

/** Holds users in memory; each test can make the next inserts fail the way PostgreSQL would. */
class FakeUsersStore implements Pick<UsersPort, keyof UsersPort> {
  users: UserRow[] = [];
  insertAttempts: NewUser[] = [];
  failNextInserts: Error[] = [];

  async insert(user: NewUser) {
    this.insertAttempts.push(user);
    const failure = this.failNextInserts.shift();
    if (failure) throw failure;
    const row = {
      ...user,
      id: String(user.id),
      discriminator: '0',
      bio: '',
      locale: 'en-US',
      theme: 'dark',
      friend_source_flags: { all: true, mutual_friends: true, mutual_guilds: true },
    } as UserRow;
    this.users.push(row);
    return row;
  }
  async taken(values: { username?: string; email?: string }) {
    const fields: UniqueField[] = [];
    if (values.username && this.users.some((u) => u.username.toLowerCase() === values.username!.toLowerCase())) fields.push('username');
    if (values.email && this.users.some((u) => u.email?.toLowerCase() === values.email!.toLowerCase())) fields.push('email');
    return fields;
  }
  async findById(id: string) {
    return this.users.find((u) => u.id === id);
  }
  async findByUsername(username: string) {
    return this.users.find((u) => u.username.toLowerCase() === username.toLowerCase());
  }
  async findManyByIds(ids: string[]) {
    return this.users.filter((u) => ids.includes(u.id));
  }
  async unknownIds(ids: string[]) {
    return ids.filter((id) => !this.users.some((u) => u.id === id));
  }
  async findByEmail(email: string) {
    return this.users.find((u) => u.email?.toLowerCase() === email.toLowerCase());
  }
  async findByPhone(phone: string) {
    return this.users.find((u) => u.phone === phone);
  }
}

const fakeSessions = { create: async (userId: string) => ({ token: `token-of-${userId}`, sessionId: 's' }) };
const fakePasswords = {
  hash: async (password: string) => `hashed:${password}`,
  verify: async (hash: string | null, password: string) => hash === `hashed:${password}`,
};

let users: FakeUsersStore;
let accounts: AccountsService;

beforeEach(() => {
  users = new FakeUsersStore();
  // The fakes have the public shape of each class; the casts only drop the classes' private fields.
  accounts = new AccountsService(
    users as unknown as UsersPort,
    fakeSessions as unknown as SessionsService,
    fakePasswords as unknown as PasswordHasher,
    new SnowflakeGenerator(),
  );
});

const request = { clientIp: '127.0.0.1' };
const input = (overrides = {}) => ({ username: 'alice', email: 'alice@example.com', password: 'password1', ...overrides });

function formErrors(err: unknown) {
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).body.code).toBe(50035);
  return (err as ApiError).body.errors;
}

describe('AccountsService.register', () => {
  it('when an invite code comes with the registration, then it is redeemed for the new account once it exists', async () => {
    const redeemed: string[] = [];
    const withInvites = new AccountsService(
      users as unknown as UsersPort,
      fakeSessions as unknown as SessionsService,
      fakePasswords as unknown as PasswordHasher,
      new SnowflakeGenerator(),
      undefined,
      undefined,
      { redeem: async (code, userId) => redeemed.push(`${code}:${userId}:${users.users.length}`) > 0 },
    );
    const { userId } = await withInvites.register(input({ invite: 'Code1234' }), request);
    expect(redeemed).toEqual([`Code1234:${userId}:1`]);
    await withInvites.register(input({ username: 'bob', email: 'bob@example.com' }), request);
    expect(redeemed).toHaveLength(1);
  });

  it('when the account is new, then it is stored with the hashed password and a session token is returned', async () => {
    const { token, userId } = await accounts.register(input(), request);
    expect(token).toBe(`token-of-${userId}`);
    expect(users.users[0]).toMatchObject({ id: userId, username: 'alice', email: 'alice@example.com', password_hash: 'hashed:password1' });
  });

  it('when username and email are both taken (in any case), then one error names both', async () => {
    await accounts.register(input(), request);
    const err = await accounts.register(input({ email: 'ALICE@example.com' }), request).catch((e: unknown) => e);
    expect(formErrors(err)).toEqual({
      username: { _errors: [expect.objectContaining({ code: 'USERNAME_ALREADY_TAKEN' })] },
      email: { _errors: [expect.objectContaining({ code: 'EMAIL_ALREADY_REGISTERED' })] },
    });
    expect(users.users).toHaveLength(1);
  });

  it('when a concurrent registration wins the race at the unique index, then its field is reported', async () => {
    users.failNextInserts = [new DuplicateUserError(['username'])];
    const err = await accounts.register(input(), request).catch((e: unknown) => e);
    expect(formErrors(err)).toEqual({ username: { _errors: [expect.objectContaining({ code: 'USERNAME_ALREADY_TAKEN' })] } });
  });

  it('when another process minted the same id, then the insert is retried with a new id', async () => {
    users.failNextInserts = [new DuplicateIdError()];
    const { userId } = await accounts.register(input(), request);
    expect(users.insertAttempts).toHaveLength(2);
    expect(users.insertAttempts[0]!.id).not.toBe(users.insertAttempts[1]!.id);
    expect(users.users.map((u) => u.id)).toEqual([userId]);
  });

  it('when the id keeps colliding, then after three tries the error surfaces', async () => {
    users.failNextInserts = [new DuplicateIdError(), new DuplicateIdError(), new DuplicateIdError()];
    await expect(accounts.register(input(), request)).rejects.toBeInstanceOf(DuplicateIdError);
    expect(users.insertAttempts).toHaveLength(3);
  });

  it('when only a display name is given, then the username is made from its allowed characters', async () => {
    await accounts.register(input({ username: undefined, global_name: 'Zoë  O..Brien!' }), request);
    expect(users.users[0]!.username).toBe('zoo.brien');
  });
});

describe('AccountsService.login', () => {
  it('when the password is right, then the user id, a token and the settings', async () => {
    const { userId } = await accounts.register(input(), request);
    expect(await accounts.login({ login: 'Alice@Example.com', password: 'password1' }, request)).toEqual({
      user_id: userId,
      token: `token-of-${userId}`,
      user_settings: { locale: 'en-US', theme: 'dark' },
    });
  });

  it('when the password is wrong or the login unknown, then INVALID_LOGIN on login and password', async () => {
    await accounts.register(input(), request);
    for (const attempt of [
      { login: 'alice@example.com', password: 'nope' },
      { login: 'bob@example.com', password: 'password1' },
    ]) {
      const err = await accounts.login(attempt, request).catch((e: unknown) => e);
      expect(formErrors(err)).toEqual({
        login: { _errors: [{ code: 'INVALID_LOGIN', message: 'Login or password is invalid.' }] },
        password: { _errors: [{ code: 'INVALID_LOGIN', message: 'Login or password is invalid.' }] },
      });
    }
  });
});
