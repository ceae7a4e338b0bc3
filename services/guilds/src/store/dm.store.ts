import { sql } from '@kith/platform';
import type { DmRepository } from '../domain/ports.js';
import { ChannelType, type ChannelRecord } from '../domain/records.js';
import type { Db } from './guilds.store.js';

/** DMs and group DMs: the one channel of a pair of users, and recipients. */
export class PgDms implements DmRepository {
  constructor(private readonly db: Db) {}

  /** Serialises opening the DM of one pair: two concurrent opens find or create the same channel. */
  async lockPair(low: string, high: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`dm:${low}:${high}`}, 0))`.execute(this.db);
  }

  async findPair(low: string, high: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('dm_pairs')
      .select('channel_id')
      .where('low_user_id', '=', low)
      .where('high_user_id', '=', high)
      .executeTakeFirst();
    return row?.channel_id;
  }

  async insertPair(low: string, high: string, channelId: string): Promise<void> {
    await this.db.insertInto('dm_pairs').values({ low_user_id: low, high_user_id: high, channel_id: channelId }).execute();
  }

  /** The two users of a DM (whether or not either has closed it). */
  async pairOf(channelId: string): Promise<string[]> {
    const row = await this.db
      .selectFrom('dm_pairs')
      .select(['low_user_id', 'high_user_id'])
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return row ? [row.low_user_id, row.high_user_id] : [];
  }

  /** Adds a recipient; false when they already were one. */
  async addRecipient(channelId: string, userId: string): Promise<boolean> {
    const result = await this.db
      .insertInto('channel_recipients')
      .values({ channel_id: channelId, user_id: userId })
      .onConflict((oc) => oc.columns(['channel_id', 'user_id']).doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async removeRecipient(channelId: string, userId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('channel_recipients')
      .where('channel_id', '=', channelId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** A group DM's recipients in the order they joined (the owner first). */
  async recipientIds(channelId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('channel_recipients')
      .select('user_id')
      .where('channel_id', '=', channelId)
      .orderBy('added_at')
      .orderBy('user_id')
      .execute();
    return rows.map((r) => r.user_id);
  }

  /** Everyone in a private channel: a DM's pair, a group DM's recipients. */
  participants(channel: ChannelRecord): Promise<string[]> {
    return channel.type === ChannelType.DM ? this.pairOf(channel.id) : this.recipientIds(channel.id);
  }

  /** Closes a DM for the user (they stay a recipient). */
  async close(channelId: string, userId: string): Promise<void> {
    await this.db
      .insertInto('dm_closures')
      .values({ channel_id: channelId, user_id: userId })
      .onConflict((oc) => oc.columns(['channel_id', 'user_id']).doNothing())
      .execute();
  }

  /** Reopens a DM the user had closed; false when it was open. */
  async reopen(channelId: string, userId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('dm_closures')
      .where('channel_id', '=', channelId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * The private channels the user has open (not closed), most recent first: both
   * GET /users/@me/channels and READY list these.
   */
  listOpen(userId: string): Promise<ChannelRecord[]> {
    return this.db
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
