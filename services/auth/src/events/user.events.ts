import type { DomainEvent, Outbox } from '@kith/platform';
import type { Transaction } from 'kysely';
import { privateUser } from '../domain/user.view.js';
import type { AuthDatabase } from '../store/schema.js';
import type { UserRow } from '../domain/ports.js';

/**
 * The dispatch a user's clients receive when their user object changes (profile, email, phone,
 * MFA). It reaches realtime through the outbox as `events.auth.USER_UPDATE`; other services
 * (social) subscribe to it too, to refresh the partial users they keep.
 */
export const USER_UPDATE = 'USER_UPDATE';

export type UserUpdate = ReturnType<typeof privateUser>;

export function userUpdateEvent(user: UserRow): DomainEvent<UserUpdate> {
  return { name: USER_UPDATE, audience: { users: [user.id] }, data: privateUser(user) };
}

/**
 * Announces a user's new state from inside the transaction that changed it: the row is read in
 * that transaction, so the event carries exactly what commits, and commits (or not) with it.
 */
export class UserUpdates {
  constructor(private readonly outbox: Outbox) {}

  /** `trx` may be of a store's wider view of the database (`withTables`): only `users` is read. */
  async announce<DB extends AuthDatabase>(trx: Transaction<DB>, userId: string): Promise<void> {
    const user = await (trx as unknown as Transaction<AuthDatabase>)
      .selectFrom('users')
      .selectAll()
      .where('id', '=', userId)
      .executeTakeFirst();
    if (user) await this.outbox.enqueue(trx, [userUpdateEvent(user)]);
  }

  async announceRow<DB extends AuthDatabase>(trx: Transaction<DB>, user: UserRow): Promise<void> {
    await this.outbox.enqueue(trx, [userUpdateEvent(user)]);
  }
}
