import type { Express, Request, Response } from 'express';
import { z } from 'zod';
import { identityOf, parse, userIdOf } from '@kith/platform';
import { ELEVATION_COOKIE, type ElevationGuard, type ElevationProof } from '../domain/mfa/elevation.js';
import { ELEVATION_TTL_SECONDS } from '../domain/mfa/elevation-token.js';
import type { MfaEnrollment } from '../domain/mfa/enrollment.js';
import type { LoginMfa } from '../domain/mfa/login-mfa.js';
import { announceRevoked, sessionIdOf, sessionRequest } from './auth.routes.js';

const enableTotpBody = z.object({
  password: z.string().max(4096).optional(),
  secret: z.string().max(256).optional(),
  code: z.string().max(32).optional(),
});

const codesVerificationBody = z.object({
  key: z.string().max(256).optional(),
  nonce: z.string().max(256).optional(),
  regenerate: z.boolean().optional(),
});

const mfaLoginBody = z.object({
  ticket: z.string().min(1).max(512),
  code: z.string().min(1).max(8192),
  login_instance_id: z.string().max(64).nullish(),
  login_source: z.string().max(64).nullish(),
  gift_code_sku_id: z.string().max(32).nullish(),
});

const finishBody = z.object({
  ticket: z.string().min(1).max(512),
  mfa_type: z.string().min(1).max(32),
  data: z.string().min(1).max(8192),
});

const header = (req: Request, name: string): string | undefined => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** The elevation JWT wherever a client may put it (either header, or the cookie `/mfa/finish` set), and the caller's session. */
export function elevationProofOf(req: Request, res: Response): ElevationProof {
  const cookie = /(?:^|;\s*)__Secure-recent_mfa=([^;]*)/.exec(header(req, 'cookie') ?? '')?.[1];
  return {
    headers: [header(req, 'x-service-mfa-authorization'), header(req, 'x-discord-mfa-authorization')],
    cookie,
    sessionId: identityOf(res).sessionId ?? undefined,
  };
}

function setElevationCookie(res: Response, token: string): void {
  res.setHeader('Set-Cookie', `${ELEVATION_COOKIE}=${token}; Max-Age=${ELEVATION_TTL_SECONDS}; Path=/; Secure; HttpOnly; SameSite=Strict`);
}

export function mfaRoutes(app: Express, enrollment: MfaEnrollment, loginMfa: LoginMfa, guard: ElevationGuard): void {
  app.post('/users/@me/mfa/totp/enable', async (req, res) => {
    const { revoked, ...body } = await enrollment.enableTotp(userIdOf(res), parse(enableTotpBody, req.body), sessionRequest(req, res));
    announceRevoked(res, revoked);
    res.json(body);
  });

  app.post('/users/@me/mfa/totp/disable', async (req, res) => {
    const { token, revoked } = await enrollment.disableTotp(userIdOf(res), elevationProofOf(req, res), sessionRequest(req, res));
    announceRevoked(res, revoked);
    res.json({ token });
  });

  app.post('/users/@me/mfa/codes-verification', async (req, res) => {
    const userId = userIdOf(res);
    const { regenerate } = parse(codesVerificationBody, req.body);
    res.json(await enrollment.backupCodes(userId, regenerate ?? false, elevationProofOf(req, res)));
  });

  app.post('/auth/mfa/:type', async (req, res) => {
    res.json(await loginMfa.finish(String(req.params.type), parse(mfaLoginBody, req.body), sessionRequest(req, res)));
  });

  app.post('/mfa/finish', async (req, res) => {
    const token = await guard.finish(userIdOf(res), sessionIdOf(res), parse(finishBody, req.body));
    setElevationCookie(res, token);
    res.json({ token });
  });
}
