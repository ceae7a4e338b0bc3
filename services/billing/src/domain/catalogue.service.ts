import { billingError } from './errors.js';
import type { CatalogueStore } from './ports.js';
import type { Plan, Sku } from './types.js';

/** The published SKUs and their subscription plans, from the catalogue the migrations seed. */
export class CatalogueService {
  constructor(private readonly store: CatalogueStore) {}

  skus(): Promise<Sku[]> {
    return this.store.skus();
  }

  async sku(id: string): Promise<Sku> {
    const sku = await this.store.sku(id);
    if (!sku) throw billingError('UNKNOWN_SKU');
    return sku;
  }

  async plans(skuId: string): Promise<Plan[]> {
    await this.sku(skuId);
    return this.store.plansOfSku(skuId);
  }
}

/** The currency prices are shown in for a country; the catalogue prices in USD, EUR and CAD. */
export function currencyOfCountry(country: string | undefined): string {
  if (!country) return 'usd';
  if (country === 'CA') return 'cad';
  return EURO_COUNTRIES.has(country) ? 'eur' : 'usd';
}

const EURO_COUNTRIES = new Set([
  'AT',
  'BE',
  'CY',
  'DE',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PT',
  'SI',
  'SK',
]);
