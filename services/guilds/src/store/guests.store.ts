import type { GuestRepository } from '../domain/ports.js';
import type { GuestRecord } from '../domain/records.js';
import type { Db } from './guilds.store.js';

const COLUMNS = ['guild_id', 'user_id', 'session_id', 'channel_id'] as const;

/** The SQL of guest accesses. */
export class PgGuests implements GuestRepository {
  constructor(private readonly db: Db) {}

  async add(guest: GuestRecord): Promise<boolean> {
    const inserted = await this.db
      .insertInto('guild_guests')
      .values(guest)
      .onConflict((oc) => oc.columns(['guild_id', 'user_id', 'session_id']).doNothing())
      .executeTakeFirst();
    return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  end(where: { guildId?: string; userId?: string; sessionId?: string }): Promise<GuestRecord[]> {
    let query = this.db.deleteFrom('guild_guests');
    if (where.guildId) query = query.where('guild_id', '=', where.guildId);
    if (where.userId) query = query.where('user_id', '=', where.userId);
    if (where.sessionId) query = query.where('session_id', '=', where.sessionId);
    return query.returning(COLUMNS).execute();
  }
}
