import type { Express } from 'express';
import { isSnowflake, parse } from '@kith/platform';
import { currencyOfCountry, type CatalogueService } from '../domain/catalogue.service.js';
import { billingError } from '../domain/errors.js';
import type { Sku } from '../domain/types.js';
import { planView, skuView } from '../domain/views.js';
import { bulkPlansQuery, listingsQuery, plansQuery } from './schemas.js';

/** The platform's store endpoints for the published catalogue (no user needed, as the platform serves them). */
export function storeRoutes(app: Express, catalogue: CatalogueService): void {
  app.get('/store/published-listings/skus/subscription-plans', async (req, res) => {
    const query = parse(bulkPlansQuery, req.query);
    const currency = currencyOfCountry(query.country_code);
    const out = [];
    for (const id of query.sku_ids) out.push(...(await catalogue.plans(id)).map((p) => planView(p, currency, query.country_code ?? 'US')));
    res.json(out);
  });

  app.get('/store/published-listings/skus/:sku/subscription-plans', async (req, res) => {
    const query = parse(plansQuery, req.query);
    const plans = await catalogue.plans(skuId(req.params.sku));
    const currency = currencyOfCountry(query.country_code);
    res.json(plans.map((p) => planView(p, currency, query.country_code ?? 'US')));
  });

  app.get('/store/published-listings/skus/:sku', async (req, res) => {
    res.json(listingView(await catalogue.sku(skuId(req.params.sku))));
  });

  app.get('/store/published-listings/skus', async (req, res) => {
    const { application_id } = parse(listingsQuery, req.query);
    res.json((await catalogue.skus()).filter((s) => s.application_id === application_id).map(listingView));
  });
}

function skuId(value: string): string {
  if (!isSnowflake(value)) throw billingError('UNKNOWN_SKU');
  return value;
}

/** A store listing of a SKU: the platform's listing object around the SKU. */
function listingView(sku: Sku) {
  return {
    id: sku.id,
    summary: sku.name,
    description: sku.name,
    sku: skuView(sku),
    thumbnail: null,
    tagline: null,
    published: true,
    benefits: [],
  };
}
