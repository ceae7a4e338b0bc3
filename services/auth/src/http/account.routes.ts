import type { Express } from 'express';
import { z } from 'zod';
import { lengthString, parse, userIdOf } from '@kith/platform';
import type { AccountChangesService } from '../domain/account-changes.service.js';
import { privateUser } from '../domain/user.view.js';
import { announceRevoked, sessionRequest } from './auth.routes.js';
import { elevationProofOf } from './mfa.routes.js';
import { password, username } from './schemas.js';

const modifyUserBody = z.object({
  username: username.optional(),
  global_name: lengthString(1, 32).nullish(),
  email: z.email().max(254).optional(),
  password: z.string().min(1).max(4096).optional(),
  new_password: password.optional(),
});

const confirmBody = z.object({ password: z.string().max(4096).nullish() });

export function accountRoutes(app: Express, changes: AccountChangesService): void {
  app.patch('/users/@me', async (req, res) => {
    const userId = userIdOf(res);
    const input = parse(modifyUserBody, req.body);
    const result = await changes.modify(userId, input, elevationProofOf(req, res), sessionRequest(req, res));
    announceRevoked(res, result.revoked);
    res.json({ ...privateUser(result.user), ...(result.token ? { token: result.token } : {}) });
  });

  app.post('/users/@me/disable', async (req, res) => {
    const userId = userIdOf(res);
    const { password: given } = parse(confirmBody, req.body);
    announceRevoked(res, await changes.disable(userId, given, elevationProofOf(req, res)));
    res.status(204).end();
  });

  app.post('/users/@me/delete', async (req, res) => {
    const userId = userIdOf(res);
    const { password: given } = parse(confirmBody, req.body);
    announceRevoked(res, await changes.scheduleDeletion(userId, given, elevationProofOf(req, res)));
    res.status(204).end();
  });
}
