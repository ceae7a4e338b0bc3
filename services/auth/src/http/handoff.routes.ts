import type { Express } from 'express';
import { z } from 'zod';
import { identityOf, lengthString, parse, userIdOf } from '@kith/platform';
import type { HandoffService } from '../domain/handoff.service.js';
import { sessionRequest } from './auth.routes.js';

const createBody = z.object({ key: lengthString(1, 256) });
const exchangeBody = z.object({ key: lengthString(1, 256), handoff_token: lengthString(1, 256) });

export function handoffRoutes(app: Express, handoff: HandoffService): void {
  app.post('/auth/handoff', async (req, res) => {
    const userId = userIdOf(res);
    const { key } = parse(createBody, req.body);
    res.json({ handoff_token: await handoff.create(userId, key, identityOf(res).clientIp) });
  });

  // The session the exchange opens describes the target client, as a login would.
  app.post('/auth/handoff/exchange', async (req, res) => {
    const { key, handoff_token } = parse(exchangeBody, req.body);
    res.json(await handoff.exchange(key, handoff_token, sessionRequest(req, res)));
  });
}
