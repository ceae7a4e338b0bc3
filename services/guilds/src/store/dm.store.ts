import { sql, type Kysely } from '@kith/platform';
import { ChannelType, type ChannelRow } from './access.store.js';
import type { GuildsDatabase } from './schema.js';

type Db = Kysely<GuildsDatabase>;

/** DMs and group DMs: the one channel of a pair of users, and recipients. */
export class PgDmStore {
  /** Serialises opening the DM of one pair: two concurrent opens find or create the same channel. */
  async lockPair(trx: Db, low: string, high: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`dm:${low}:${high}`}, 0))`.execute(trx);
  }

  async findPair(db: Db, low: string, high: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('dm_pairs')
      .select('channel_id')
      .where('low_user_id', '=', low)
      .where('high_user_id', '=', high)
      .executeTakeFirst();
    return row?.channel_id;
  }

  async insertPair(db: Db, low: string, high: string, channelId: string): Promise<void> {
    await db.insertInto('dm_pairs').values({ low_user_id: low, high_user_id: high, channel_id: channelId }).execute();
  }

  /** The two users of a DM (whether or not either has closed it). */
  async pairOf(db: Db, channelId: string): Promise<string[]> {
    const row = await db
      .selectFrom('dm_pairs')
      .select(['low_user_id', 'high_user_id'])
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return row ? [row.low_user_id, row.high_user_id] : [];
  }

  /** Adds a recipient; false when they already were one. */
  async addRecipient(db: Db, channelId: string, userId: string): Promise<boolean> {
    const result = await db
      .insertInto('channel_recipients')
      .values({ channel_id: channelId, user_id: userId })
      .onConflict((oc) => oc.columns(['channel_id', 'user_id']).doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async removeRecipient(db: Db, channelId: string, userId: string): Promise<boolean> {
    const result = await db
      .deleteFrom('channel_recipients')
      .where('channel_id', '=', channelId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** A group DM's recipients in the order they joined (the owner first). */
  async recipientIds(db: Db, channelId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('channel_recipients')
      .select('user_id')
      .where('channel_id', '=', channelId)
      .orderBy('added_at')
      .orderBy('user_id')
      .execute();
    return rows.map((r) => r.user_id);
  }

  /** Everyone in a private channel: a DM's pair, a group DM's recipients. */
  participantIds(db: Db, channel: ChannelRow): Promise<string[]> {
    return channel.type === ChannelType.DM ? this.pairOf(db, channel.id) : this.recipientIds(db, channel.id);
  }

  /** Closes a DM for the user (they stay a recipient). */
  async close(db: Db, channelId: string, userId: string): Promise<void> {
    await db
      .insertInto('dm_closures')
      .values({ channel_id: channelId, user_id: userId })
      .onConflict((oc) => oc.columns(['channel_id', 'user_id']).doNothing())
      .execute();
  }

  /** Reopens a DM the user had closed; false when it was open. */
  async reopen(db: Db, channelId: string, userId: string): Promise<boolean> {
    const result = await db.deleteFrom('dm_closures').where('channel_id', '=', channelId).where('user_id', '=', userId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * The private channels the user has open (not closed), most recent first: both
   * GET /users/@me/channels and READY list these.
   */
  listOpen(db: Db, userId: string): Promise<ChannelRow[]> {
    return db
      .selectFrom('channels')
      .innerJoin('channel_recipients', 'channel_recipients.channel_id', 'channels.id')
      .selectAll('channels')
      .where('channel_recipients.user_id', '=', userId)
      .where('channels.guild_id', 'is', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('dm_closures')
              .select('dm_closures.user_id')
              .whereRef('dm_closures.channel_id', '=', 'channels.id')
              .where('dm_closures.user_id', '=', userId),
          ),
        ),
      )
      .orderBy('channels.id', 'desc')
      .execute();
  }
}
