import type { Express } from 'express';
import { z } from 'zod';
import { identityOf, lengthString, parse } from '@kith/platform';
import type { LoginLocations } from '../domain/recovery/locations.js';
import type { RecoveryService } from '../domain/recovery/recovery.service.js';
import { announceRevoked, sessionRequest } from './auth.routes.js';
import { password } from './schemas.js';

const token = lengthString(1, 512);

const forgotBody = z.object({ login: lengthString(1, 320) });

const resetBody = z.object({
  token,
  password,
  source: z.string().max(256).nullish(),
  method: z.string().max(32).nullish(),
  ticket: z.string().max(512).nullish(),
  code: z.string().max(8192).nullish(),
});

const oneTimeLoginBody = z.object({ ticket: token });
const revertBody = z.object({ token, password });
const authorizeIpBody = z.object({ token });

/** Password recovery, one-time login, account revert and IP authorization: all unauthenticated. */
export function recoveryRoutes(app: Express, recovery: RecoveryService, locations: LoginLocations): void {
  app.post('/auth/forgot', async (req, res) => {
    res.json(await recovery.forgot(parse(forgotBody, req.body).login, identityOf(res).clientIp));
  });

  app.post('/auth/reset', async (req, res) => {
    const result = await recovery.reset(parse(resetBody, req.body), sessionRequest(req, res));
    if ('mfa' in result) {
      res.json(result);
      return;
    }
    announceRevoked(res, result.revoked);
    res.json({ token: result.token });
  });

  app.post('/auth/one-time-login', async (req, res) => {
    res.json(await recovery.oneTimeLogin(parse(oneTimeLoginBody, req.body).ticket, sessionRequest(req, res)));
  });

  app.post('/auth/revert', async (req, res) => {
    const body = parse(revertBody, req.body);
    const { email, revoked } = await recovery.revert(body.token, body.password);
    announceRevoked(res, revoked);
    res.json({ email });
  });

  app.post('/auth/authorize-ip', async (req, res) => {
    await locations.authorize(parse(authorizeIpBody, req.body).token);
    res.status(204).end();
  });
}
