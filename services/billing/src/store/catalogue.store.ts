import type { Kysely } from '@kith/platform';
import type { CatalogueStore } from '../domain/ports.js';
import type { Interval, Plan, Sku } from '../domain/types.js';
import type { BillingDatabase } from './schema.js';

/**
 * The catalogue is small and changes only with a migration: read once per process, then served
 * from memory (every purchase and preview prices from it).
 */
export class PgCatalogueStore implements CatalogueStore {
  private loaded: Promise<{ skus: Sku[]; plans: Map<string, Plan> }> | undefined;

  constructor(private readonly db: Kysely<BillingDatabase>) {}

  async skus(): Promise<Sku[]> {
    return (await this.load()).skus;
  }

  async sku(id: string): Promise<Sku | undefined> {
    return (await this.load()).skus.find((s) => s.id === id);
  }

  async plansOfSku(skuId: string): Promise<Plan[]> {
    return [...(await this.load()).plans.values()].filter((p) => p.sku_id === skuId);
  }

  async plans(ids: string[]): Promise<Map<string, Plan>> {
    const all = (await this.load()).plans;
    const out = new Map<string, Plan>();
    for (const id of ids) {
      const plan = all.get(id);
      if (plan) out.set(id, plan);
    }
    return out;
  }

  private load() {
    this.loaded ??= this.read().catch((err: unknown) => {
      this.loaded = undefined;
      throw err;
    });
    return this.loaded;
  }

  private async read() {
    const skuRows = await this.db.selectFrom('skus').selectAll().where('published', '=', true).orderBy('id').execute();
    const planRows = await this.db.selectFrom('plans').selectAll().where('published', '=', true).orderBy('id').execute();
    const priceRows = await this.db.selectFrom('plan_prices').selectAll().orderBy('currency').execute();
    const skus: Sku[] = skuRows.map((s) => ({
      id: s.id,
      name: s.name,
      slug: s.slug,
      type: s.type,
      application_id: s.application_id,
      product_line: s.product_line,
      premium_type: s.premium_type,
    }));
    const plans = new Map<string, Plan>();
    for (const p of planRows) {
      const sku = skus.find((s) => s.id === p.sku_id);
      if (!sku) continue;
      plans.set(p.id, {
        id: p.id,
        sku_id: p.sku_id,
        name: p.name,
        interval: p.interval as Interval,
        interval_count: p.interval_count,
        premium_guild_slots: p.premium_guild_slots,
        premium_type: sku.premium_type,
        prices: priceRows
          .filter((x) => x.plan_id === p.id)
          .map((x) => ({
            currency: x.currency,
            amount: x.amount,
            tax_bps: x.tax_bps,
            tax_inclusive: x.tax_inclusive,
            exponent: x.exponent,
          })),
      });
    }
    return { skus, plans };
  }
}
