import type { Express } from 'express';
import { isSnowflake, parse, userIdOf } from '@kith/platform';
import { billingError } from '../domain/errors.js';
import type { PaymentSourcesService } from '../domain/payment-sources.service.js';
import { sourceView } from '../domain/views.js';
import { createPaymentSourceBody, modifyPaymentSourceBody } from './schemas.js';

/** The user's payment sources under /users/@me/billing/payment-sources. */
export function paymentSourceRoutes(
  app: Express,
  sources: PaymentSourcesService,
  inUse: (userId: string, sourceId: string) => Promise<boolean>,
): void {
  const base = '/users/@me/billing/payment-sources';

  app.get(base, async (_req, res) => {
    res.json((await sources.list(userIdOf(res))).map((s) => sourceView(s, true)));
  });

  app.post(base, async (req, res) => {
    const userId = userIdOf(res);
    const body = parse(createPaymentSourceBody, req.body);
    res.json(sourceView(await sources.add(userId, { token: body.token, billing_address: body.billing_address })));
  });

  app.get(`${base}/:id`, async (req, res) => {
    const userId = userIdOf(res);
    res.json(sourceView(await sources.get(userId, sourceId(req.params.id))));
  });

  app.patch(`${base}/:id`, async (req, res) => {
    const userId = userIdOf(res);
    const id = sourceId(req.params.id);
    const body = parse(modifyPaymentSourceBody, req.body);
    res.json(sourceView(await sources.update(userId, id, body)));
  });

  app.delete(`${base}/:id`, async (req, res) => {
    const userId = userIdOf(res);
    await sources.remove(userId, sourceId(req.params.id), (id) => inUse(userId, id));
    res.status(204).end();
  });
}

function sourceId(value: string): string {
  if (!isSnowflake(value)) throw billingError('UNKNOWN_PAYMENT_SOURCE');
  return value;
}
