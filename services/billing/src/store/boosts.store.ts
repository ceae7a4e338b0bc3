import { sql, type Kysely, type Outbox } from '@kith/platform';
import type { Transaction } from 'kysely';
import type { Boost, BoostStore, BoostTx, SlotState } from '../domain/boosts.service.js';
import type { SubscriptionStatus } from '../domain/types.js';
import type { BillingDatabase } from './schema.js';
import { markPerks } from './subscriptions.store.js';

type Db = Kysely<BillingDatabase> | Transaction<BillingDatabase>;

interface SlotRow {
  id: string;
  user_id: string;
  subscription_id: string;
  canceled: boolean;
  cooldown_ends_at: Date | null;
  boost_id: string | null;
  guild_id: string | null;
  boost_created_at: Date | null;
  status: number;
  current_period_end: Date;
  pause_ends_at: Date | null;
}

const SLOT_SELECT = sql`SELECT g.id, g.user_id, g.subscription_id, g.canceled, g.cooldown_ends_at,
    b.id AS boost_id, b.guild_id, b.created_at AS boost_created_at, s.status, s.current_period_end, s.pause_ends_at
  FROM premium_guild_slots g JOIN subscriptions s ON s.id = g.subscription_id
  LEFT JOIN guild_boosts b ON b.slot_id = g.id AND NOT b.ended`;

const toSlot = (r: SlotRow): SlotState => ({
  id: r.id,
  user_id: r.user_id,
  subscription_id: r.subscription_id,
  canceled: r.canceled,
  cooldown_ends_at: r.cooldown_ends_at,
  boost: r.boost_id ? { id: r.boost_id, guild_id: r.guild_id!, created_at: r.boost_created_at! } : null,
  status: r.status as SubscriptionStatus,
  period_end: r.current_period_end,
  pause_ends_at: r.pause_ends_at,
});

const BOOST_SELECT = sql`SELECT b.id, b.slot_id, b.user_id, b.guild_id, b.ended, s.status, s.pause_ends_at
  FROM guild_boosts b JOIN premium_guild_slots g ON g.id = b.slot_id JOIN subscriptions s ON s.id = g.subscription_id`;

const toBoost = (r: Omit<Boost, 'status'> & { status: number }): Boost => ({ ...r, status: r.status as SubscriptionStatus });

export class PgBoostStore implements BoostStore {
  constructor(
    private readonly db: Kysely<BillingDatabase>,
    private readonly outbox: Outbox,
  ) {}

  forUser<T>(userId: string, fn: (tx: BoostTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      // The same lock as the user's purchases and subscription changes: slots never change under a boost.
      await sql`SELECT pg_advisory_xact_lock(2, hashtext(${userId}))`.execute(trx);
      return fn(this.tx(trx, userId));
    });
  }

  async slotsOf(userId: string): Promise<SlotState[]> {
    const { rows } = await sql<SlotRow>`${SLOT_SELECT} WHERE g.user_id = ${userId} ORDER BY g.id`.execute(this.db);
    return rows.map(toSlot);
  }

  async appliedBy(userId: string): Promise<Boost[]> {
    const { rows } = await sql<
      Boost & { status: number }
    >`${BOOST_SELECT} WHERE b.user_id = ${userId} AND NOT b.ended ORDER BY b.id`.execute(this.db);
    return rows.map(toBoost);
  }

  async appliedTo(guildId: string): Promise<Boost[]> {
    const { rows } = await sql<
      Boost & { status: number }
    >`${BOOST_SELECT} WHERE b.guild_id = ${guildId} AND NOT b.ended ORDER BY b.id`.execute(this.db);
    return rows.map(toBoost);
  }

  changesSince(userId: string, since: Date): Promise<Date[]> {
    return changesSince(this.db, userId, since);
  }

  private tx(trx: Transaction<BillingDatabase>, userId: string): BoostTx {
    return {
      slots: async (ids) => {
        if (ids.length === 0) return [];
        const { rows } = await sql<SlotRow>`${SLOT_SELECT} WHERE g.id IN (${sql.join(ids)}) ORDER BY g.id`.execute(trx);
        return rows.map(toSlot);
      },
      changesSince: (since) => changesSince(trx, userId, since),
      insertBoost: async (boost) => {
        await trx.insertInto('guild_boosts').values(boost).execute();
      },
      endBoost: async (boostId, at) => {
        await trx.updateTable('guild_boosts').set({ ended: true, ended_at: at }).where('id', '=', boostId).execute();
      },
      boost: async (boostId) => {
        const { rows } = await sql<Boost & { status: number }>`${BOOST_SELECT} WHERE b.id = ${boostId}`.execute(trx);
        return rows[0] && toBoost(rows[0]);
      },
      recordChange: async (at) => {
        await trx.insertInto('boost_changes').values({ user_id: userId, at }).execute();
      },
      setSlot: async (slotId, patch) => {
        await trx.updateTable('premium_guild_slots').set(patch).where('id', '=', slotId).execute();
      },
      markGuild: (guildId) => markPerks(trx, 'guild', guildId),
      emit: async (events) => void (await this.outbox.enqueue(trx, events)),
    };
  }
}

async function changesSince(db: Db, userId: string, since: Date): Promise<Date[]> {
  const rows = await db
    .selectFrom('boost_changes')
    .select('at')
    .where('user_id', '=', userId)
    .where('at', '>', since)
    .orderBy('at')
    .execute();
  return rows.map((r) => r.at);
}
