import type { Express, Request, Response } from 'express';
import { z } from 'zod';
import { identityOf, lengthString, parse, userIdOf } from '@kith/platform';
import type { HandoffService } from '../domain/handoff.service.js';
import type { SessionRequest } from '../domain/sessions.service.js';

const createBody = z.object({ key: lengthString(1, 256) });
const exchangeBody = z.object({ key: lengthString(1, 256), handoff_token: lengthString(1, 256) });

/** The session the exchange opens describes the target client, as a login would. */
export function sessionRequestOf(req: Request, res: Response): SessionRequest {
  const props = req.headers['x-super-properties'];
  const ua = req.headers['user-agent'];
  return {
    clientIp: identityOf(res).clientIp,
    ...(typeof props === 'string' ? { superProperties: props } : {}),
    ...(typeof ua === 'string' ? { userAgent: ua } : {}),
  };
}

export function handoffRoutes(app: Express, handoff: HandoffService): void {
  app.post('/auth/handoff', async (req, res) => {
    const userId = userIdOf(res);
    const { key } = parse(createBody, req.body);
    res.json({ handoff_token: await handoff.create(userId, key, identityOf(res).clientIp) });
  });

  app.post('/auth/handoff/exchange', async (req, res) => {
    const { key, handoff_token } = parse(exchangeBody, req.body);
    res.json(await handoff.exchange(key, handoff_token, sessionRequestOf(req, res)));
  });
}
