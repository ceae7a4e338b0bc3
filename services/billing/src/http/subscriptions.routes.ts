import type { Express } from 'express';
import { isSnowflake, parse, userIdOf } from '@kith/platform';
import { billingError } from '../domain/errors.js';
import type { ChangesService } from '../domain/changes.service.js';
import type { PreviewsService } from '../domain/previews.service.js';
import { entitlementView, type PromotionsService } from '../domain/promotions.service.js';
import type { PurchaseService } from '../domain/purchase.service.js';
import type { SubscriptionsService } from '../domain/subscriptions.service.js';
import { invoiceView, subscriptionView } from '../domain/views.js';
import {
  analyticsQuery,
  createPreviewBody,
  createSubscriptionBody,
  listSubscriptionsQuery,
  modifyPreviewBody,
  modifySubscriptionBody,
  payInvoiceBody,
} from './schemas.js';

export interface SubscriptionDomain {
  subscriptions: SubscriptionsService;
  purchases: PurchaseService;
  changes: ChangesService;
  previews: PreviewsService;
  promotions: PromotionsService;
  /** Pushes perks a change marked (premium type, boost counts) before the answer goes out. */
  afterChange: () => Promise<void>;
}

/** The user's subscriptions under /users/@me/billing/subscriptions. */
export function subscriptionRoutes(app: Express, domain: SubscriptionDomain): void {
  const { subscriptions, purchases, changes, previews, promotions, afterChange } = domain;
  const base = '/users/@me/billing/subscriptions';

  app.post(`${base}/preview`, async (req, res) => {
    const userId = userIdOf(res);
    const body = parse(createPreviewBody, req.body);
    res.json(invoiceView(await previews.forPurchase(userId, body)));
  });

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
    // Only a premium tier's purchase marks perks (a failed one marks nothing): the others skip the push.
    const { subscription, latestInvoice, perksMarked } = await purchases.create(userId, body);
    if (perksMarked) await afterChange();
    res.json(subscriptionView(subscription, latestInvoice));
  });

  app.get(`${base}/:id`, async (req, res) => {
    const userId = userIdOf(res);
    const { subscription, latestInvoice } = await subscriptions.get(userId, subscriptionId(req.params.id));
    res.json(subscriptionView(subscription, latestInvoice));
  });

  app.patch(`${base}/:id`, async (req, res) => {
    const userId = userIdOf(res);
    const id = subscriptionId(req.params.id);
    parse(analyticsQuery, req.query);
    const body = parse(modifySubscriptionBody, req.body);
    // The change answers with the subscription as it left it: only its latest invoice is read.
    const changed = await changes.modify(userId, id, body).finally(afterChange);
    res.json(subscriptionView(changed, await subscriptions.latestInvoice(changed.id)));
  });

  app.delete(`${base}/:id`, async (req, res) => {
    const userId = userIdOf(res);
    const id = subscriptionId(req.params.id);
    parse(analyticsQuery, req.query);
    await changes.cancel(userId, id).finally(afterChange);
    res.status(204).end();
  });

  app.get(`${base}/:id/preview`, async (req, res) => {
    const userId = userIdOf(res);
    res.json(invoiceView(await previews.upcoming(userId, subscriptionId(req.params.id))));
  });

  app.patch(`${base}/:id/preview`, async (req, res) => {
    const userId = userIdOf(res);
    const id = subscriptionId(req.params.id);
    const body = parse(modifyPreviewBody, req.body);
    res.json(invoiceView(await previews.forChange(userId, id, body)));
  });

  app.get(`${base}/:id/invoices`, async (req, res) => {
    const userId = userIdOf(res);
    res.json((await subscriptions.invoices(userId, subscriptionId(req.params.id))).map(invoiceView));
  });

  app.post(`${base}/:id/invoices/:invoice/pay`, async (req, res) => {
    const userId = userIdOf(res);
    const id = subscriptionId(req.params.id);
    if (!isSnowflake(req.params.invoice)) throw billingError('UNKNOWN_INVOICE');
    const body = parse(payInvoiceBody, req.body);
    const paid = await changes.pay(userId, id, req.params.invoice, body).finally(afterChange);
    res.json(subscriptionView(paid, await subscriptions.latestInvoice(paid.id)));
  });

  app.post(`${base}/:id/promotion-reward`, async (req, res) => {
    const userId = userIdOf(res);
    const result = await promotions.claim(userId, subscriptionId(req.params.id));
    res.json({
      eligible: result.eligible,
      reason: result.reason,
      ...(result.entitlement ? { entitlement: entitlementView(result.entitlement) } : {}),
    });
  });
}

export function subscriptionId(value: string): string {
  if (!isSnowflake(value)) throw billingError('UNKNOWN_SUBSCRIPTION');
  return value;
}
