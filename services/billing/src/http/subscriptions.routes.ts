import type { Express } from 'express';
import { isSnowflake, parse, userIdOf } from '@kith/platform';
import { billingError } from '../domain/errors.js';
import type { PurchaseService } from '../domain/purchase.service.js';
import type { SubscriptionsService } from '../domain/subscriptions.service.js';
import { subscriptionView } from '../domain/views.js';
import { createSubscriptionBody, listSubscriptionsQuery } from './schemas.js';

/** The user's subscriptions under /users/@me/billing/subscriptions. */
export function subscriptionRoutes(app: Express, subscriptions: SubscriptionsService, purchases: PurchaseService): void {
  const base = '/users/@me/billing/subscriptions';

  app.get(base, async (req, res) => {
    const userId = userIdOf(res);
    const q = parse(listSubscriptionsQuery, req.query);
    const list = await subscriptions.list(userId, {
      includeInactive: q.include_inactive ?? false,
      excludeUnpaid: q.exclude_unpaid_statuses ?? false,
      type: q.subscription_type,
      limit: q.limit,
    });
    res.json(list.map((s) => subscriptionView(s)));
  });

  app.post(base, async (req, res) => {
    const userId = userIdOf(res);
    const body = parse(createSubscriptionBody, req.body);
    const created = await purchases.create(userId, body);
    const { latestInvoice } = await subscriptions.get(userId, created.id);
    res.json(subscriptionView(created, latestInvoice));
  });

  app.get(`${base}/:id`, async (req, res) => {
    const userId = userIdOf(res);
    const { subscription, latestInvoice } = await subscriptions.get(userId, subscriptionId(req.params.id));
    res.json(subscriptionView(subscription, latestInvoice));
  });
}

export function subscriptionId(value: string): string {
  if (!isSnowflake(value)) throw billingError('UNKNOWN_SUBSCRIPTION');
  return value;
}
