import type { Express } from 'express';
import { z } from 'zod';
import { ApiError, parse, userIdOf } from '@kith/platform';
import type { ElevationGuard } from '../domain/mfa/elevation.js';
import type { WebAuthn } from '../domain/mfa/webauthn.js';
import type { PasswordlessLogin } from '../domain/mfa/passwordless.js';
import { sessionRequest } from './auth.routes.js';
import { elevationProofOf } from './mfa.routes.js';

const name = z.string().trim().min(1).max(32);

const createBody = z.object({
  name: name.optional(),
  ticket: z.string().min(1).max(512).optional(),
  credential: z.string().min(1).max(16_384).optional(),
});

const renameBody = z.object({ name });

const finishBody = z.object({
  ticket: z.string().min(1).max(512),
  credential: z.string().min(1).max(16_384),
  login_source: z.string().max(64).nullish(),
  gift_code_sku_id: z.string().max(32).nullish(),
});

const REQUIRED = { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };

export interface WebAuthnRoutePorts {
  webauthn: WebAuthn;
  guard: ElevationGuard;
  passwordless: PasswordlessLogin;
}

/** WebAuthn enrollment (`/users/@me/mfa/webauthn/credentials`) and passwordless login (`/auth/conditional/*`). */
export function webauthnRoutes(app: Express, { webauthn, guard, passwordless }: WebAuthnRoutePorts): void {
  app.get('/users/@me/mfa/webauthn/credentials', async (_req, res) => {
    res.json(await webauthn.list(userIdOf(res)));
  });

  // Without parameters: a ticket and the creation options; with ticket and credential: the authenticator.
  app.post('/users/@me/mfa/webauthn/credentials', async (req, res) => {
    const userId = userIdOf(res);
    const body = parse(createBody, req.body ?? {});
    if (body.ticket === undefined && body.credential === undefined) {
      res.json(await webauthn.startRegistration(userId));
      return;
    }
    if (body.ticket === undefined) throw ApiError.form({ ticket: REQUIRED });
    if (body.credential === undefined) throw ApiError.form({ credential: REQUIRED });
    const created = await webauthn.finishRegistration(userId, {
      ticket: body.ticket,
      credential: body.credential,
      name: body.name ?? 'Security Key',
    });
    // No backup codes are generated here (TOTP's enrollment made them): the list is empty.
    res.json({ id: created.id, type: created.type, name: created.name, backup_codes: [] });
  });

  app.patch('/users/@me/mfa/webauthn/credentials/:id', async (req, res) => {
    const userId = userIdOf(res);
    const { name: newName } = parse(renameBody, req.body);
    res.json(await webauthn.rename(userId, String(req.params.id), newName));
  });

  app.delete('/users/@me/mfa/webauthn/credentials/:id', async (req, res) => {
    const userId = userIdOf(res);
    await guard.require(userId, elevationProofOf(req, res));
    await webauthn.remove(userId, String(req.params.id));
    res.status(204).end();
  });

  for (const flow of ['passwordless', 'conditional'] as const)
    app.post(`/auth/${flow}/start`, async (_req, res) => {
      res.json(await webauthn.startPasswordless(flow === 'conditional'));
    });

  app.post('/auth/conditional/finish', async (req, res) => {
    res.json(await passwordless.finish(parse(finishBody, req.body), sessionRequest(req, res)));
  });
}
