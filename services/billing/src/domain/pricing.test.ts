import { describe, expect, it } from 'vitest';
import { addInterval, applyCredits, applyOffer, priceChange, priceItems, type DiscountOffer } from './pricing.js';
import type { Plan } from './types.js';

const plan = (id: string, amount: number, extra: Partial<Plan> = {}): Plan => ({
  id,
  sku_id: 's',
  name: id,
  interval: 1,
  interval_count: 1,
  premium_guild_slots: 0,
  premium_type: 0,
  prices: [
    { currency: 'usd', amount, tax_bps: 0, tax_inclusive: true, exponent: 2 },
    { currency: 'eur', amount, tax_bps: 2000, tax_inclusive: true, exponent: 2 },
    { currency: 'cad', amount, tax_bps: 1300, tax_inclusive: false, exponent: 2 },
  ],
  ...extra,
});
const plans = new Map([
  ['a', plan('a', 999)],
  ['b', plan('b', 499)],
]);

describe('pricing', () => {
  it('when items are priced, then quantities multiply and USD carries no tax line', () => {
    const inv = priceItems(plans, [{ plan_id: 'b', quantity: 3 }], 'usd');
    expect(inv).toMatchObject({ subtotal: 1497, tax: 0, total: 1497, tax_inclusive: true });
    expect(inv.lines[0]).toMatchObject({ unit_price: 499, amount: 1497, quantity: 3 });
  });

  it('when the price includes VAT, then the tax is the part of it; when sales tax applies, it is added on top', () => {
    expect(priceItems(plans, [{ plan_id: 'a', quantity: 1 }], 'eur')).toMatchObject({ subtotal: 999, tax: 167, total: 999 });
    expect(priceItems(plans, [{ plan_id: 'a', quantity: 1 }], 'cad')).toMatchObject({
      subtotal: 999,
      tax: 130,
      total: 1129,
      tax_inclusive: false,
    });
  });

  it('when a plan is not sold in the currency or unknown, then it is an invalid plan', () => {
    expect(() => priceItems(plans, [{ plan_id: 'a', quantity: 1 }], 'jpy')).toThrow(
      expect.objectContaining({ body: expect.objectContaining({ code: 100005 }) }),
    );
    expect(() => priceItems(plans, [{ plan_id: 'x', quantity: 1 }], 'usd')).toThrow(
      expect.objectContaining({ body: expect.objectContaining({ code: 100005 }) }),
    );
  });

  it('when a plan changes half way through the period, then the old plan is credited and the new one charged for the half left', () => {
    const start = new Date('2026-01-01T00:00:00Z');
    const end = new Date('2026-01-31T00:00:00Z');
    const inv = priceChange(
      plans,
      [{ plan_id: 'b', quantity: 1 }],
      [{ plan_id: 'a', quantity: 1 }],
      'usd',
      { start, end },
      new Date('2026-01-16T00:00:00Z'),
    );
    expect(inv.lines.map((l) => [l.plan_id, l.amount, l.proration])).toEqual([
      ['b', -250, true],
      ['a', 500, true],
    ]);
    expect(inv.total).toBe(250);
    expect(inv.lines[0]!.discounts).toEqual([{ type: 1, amount: 250 }]);
  });

  it('when periods are added, then months keep their day, clamped to the month’s last, and years and days add as such', () => {
    expect(addInterval(new Date('2026-01-31T10:00:00Z'), 1, 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addInterval(new Date('2026-03-15T00:00:00Z'), 1, 1).toISOString()).toBe('2026-04-15T00:00:00.000Z');
    expect(addInterval(new Date('2024-02-29T00:00:00Z'), 2, 1).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(addInterval(new Date('2026-03-15T00:00:00Z'), 3, 14).toISOString()).toBe('2026-03-29T00:00:00.000Z');
  });

  it('when credits apply, then each pays one unit of a full-price line of its plan, and prorated lines take none', () => {
    const { priced, used } = applyCredits(priceItems(plans, [{ plan_id: 'b', quantity: 2 }], 'cad'), [
      { id: 'c1', plan_id: 'b' },
      { id: 'c2', plan_id: 'a' },
    ]);
    expect(used).toEqual(['c1']);
    expect(priced).toMatchObject({ subtotal: 499, tax: 65, total: 564 });
    expect(priced.lines[0]!.discounts).toEqual([{ type: 2, amount: 499 }]);
    const change = priceChange(
      plans,
      [{ plan_id: 'b', quantity: 1 }],
      [{ plan_id: 'a', quantity: 1 }],
      'usd',
      { start: new Date('2026-01-01'), end: new Date('2026-01-31') },
      new Date('2026-01-16'),
    );
    expect(applyCredits(change, [{ id: 'c', plan_id: 'a' }]).used).toEqual([]);
  });

  it('when an offer applies, then its amount (money, not a percentage) comes off its plans only; expired, used or elsewhere it is 100086', () => {
    const offer: DiscountOffer = { id: 'o', discount_id: 'd', amount: 250, plan_ids: ['a'], expires_at: null, applied_at: null };
    const now = new Date('2026-01-01');
    const inv = applyOffer(
      priceItems(
        plans,
        [
          { plan_id: 'a', quantity: 1 },
          { plan_id: 'b', quantity: 1 },
        ],
        'eur',
      ),
      offer,
      now,
    );
    expect(inv).toMatchObject({
      subtotal: 749 + 499,
      tax: 208,
      total: 1248,
      applied_discount_ids: ['d'],
      applied_user_discounts: { o: null },
    });
    expect(inv.lines.map((l) => l.discounts)).toEqual([[{ type: 5, amount: 250 }], []]);
    const b = priceItems(plans, [{ plan_id: 'b', quantity: 1 }], 'usd');
    expect(() => applyOffer(b, offer, now)).toThrow(expect.objectContaining({ body: expect.objectContaining({ code: 100086 }) }));
    const a = priceItems(plans, [{ plan_id: 'a', quantity: 1 }], 'usd');
    expect(() => applyOffer(a, { ...offer, expires_at: now }, now)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => applyOffer(a, { ...offer, applied_at: now }, now)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('when an offer is worth more than its line, then the line costs nothing and the discount is what the line cost', () => {
    const offer: DiscountOffer = { id: 'o', discount_id: 'd', amount: 5000, plan_ids: ['a'], expires_at: null, applied_at: null };
    const inv = applyOffer(priceItems(plans, [{ plan_id: 'a', quantity: 1 }], 'usd'), offer, new Date('2026-01-01'));
    expect(inv).toMatchObject({ subtotal: 0, total: 0 });
    expect(inv.lines[0]).toMatchObject({ amount: 0, discounts: [{ type: 5, amount: 999 }] });
  });
});
