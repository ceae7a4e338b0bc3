import { sql, type Kysely } from '@kith/platform';
import type { PerkMark, PerkStore } from '../domain/perks.service.js';
import type { BillingDatabase } from './schema.js';

/** Statuses whose holder keeps the perks (see domain/status.ts grantsPerks). */
const PERK_STATUSES = sql`(1, 2, 3, 7, 9)`;

export class PgPerkStore implements PerkStore {
  constructor(private readonly db: Kysely<BillingDatabase>) {}

  async pending(limit: number): Promise<PerkMark[]> {
    const rows = await this.db.selectFrom('perk_sync').select(['kind', 'target_id']).orderBy('since').limit(limit).execute();
    return rows.map((r) => ({ kind: r.kind as PerkMark['kind'], target_id: r.target_id }));
  }

  push(mark: PerkMark, push: (value: number) => Promise<void>): Promise<void> {
    return this.db.transaction().execute(async (trx) => {
      // One pusher per target: two pushes of one guild cannot reach guilds in the wrong order.
      await sql`SELECT pg_advisory_xact_lock(3, hashtext(${`${mark.kind}:${mark.target_id}`}))`.execute(trx);
      const row = await trx
        .selectFrom('perk_sync')
        .select('since')
        .where('kind', '=', mark.kind)
        .where('target_id', '=', mark.target_id)
        .executeTakeFirst();
      if (!row) return;
      const value = mark.kind === 'user' ? await premiumTypeOf(trx, mark.target_id) : await boostCountOf(trx, mark.target_id);
      await push(value);
      await trx
        .deleteFrom('perk_sync')
        .where('kind', '=', mark.kind)
        .where('target_id', '=', mark.target_id)
        .where('since', '=', row.since)
        .execute();
    });
  }
}

async function premiumTypeOf(db: Kysely<BillingDatabase>, userId: string): Promise<number> {
  const { rows } = await sql<{ premium_type: number }>`SELECT k.premium_type FROM subscriptions s
    JOIN subscription_items i ON i.subscription_id = s.id JOIN plans p ON p.id = i.plan_id JOIN skus k ON k.id = p.sku_id
    WHERE s.user_id = ${userId} AND s.status IN ${PERK_STATUSES} AND k.premium_type > 0
    ORDER BY s.id DESC LIMIT 1`.execute(db);
  return rows[0]?.premium_type ?? 0;
}

/** Boosts applied to the guild whose subscription still grants perks (paused ones do not count). */
export async function boostCountOf(db: Kysely<BillingDatabase>, guildId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM guild_boosts b
    JOIN premium_guild_slots g ON g.id = b.slot_id JOIN subscriptions s ON s.id = g.subscription_id
    WHERE b.guild_id = ${guildId} AND NOT b.ended AND s.status IN ${PERK_STATUSES}`.execute(db);
  return rows[0]?.n ?? 0;
}
