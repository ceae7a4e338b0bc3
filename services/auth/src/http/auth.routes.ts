import type { Express, Request, Response } from 'express';
import { ApiError, REVOKED_SESSIONS_HEADER, identityOf, parse, userIdOf } from '@kith/platform';
import type { AccountsService } from '../domain/accounts.service.js';
import { tokensOf } from '../domain/devices.service.js';
import type { SessionRequest, SessionsService } from '../domain/sessions.service.js';
import { privateUser } from '../domain/user.view.js';
import { loginBody, logoutBody, logoutSessionsBody, registerBody } from './schemas.js';

export function sessionRequest(req: Request, res: Response): SessionRequest {
  const props = req.headers['x-super-properties'];
  const ua = req.headers['user-agent'];
  const { clientIp, sessionId } = identityOf(res);
  return {
    clientIp,
    ...(sessionId ? { currentSessionId: sessionId } : {}),
    ...(typeof props === 'string' ? { superProperties: props } : {}),
    ...(typeof ua === 'string' ? { userAgent: ua } : {}),
  };
}

/** Tells the edge relaying this answer which sessions ended, so it drops them before the client hears. */
export function announceRevoked(res: Response, sessionIds: string[]): void {
  if (sessionIds.length) res.setHeader(REVOKED_SESSIONS_HEADER, sessionIds.join(','));
}

export function sessionIdOf(res: Response): string {
  const { sessionId } = identityOf(res);
  // A user identity without a session (not one a token login produces) has nothing to log out.
  if (!sessionId) throw ApiError.unauthorized();
  return sessionId;
}

export function authRoutes(app: Express, accounts: AccountsService, sessions: SessionsService): void {
  app.post('/auth/register', async (req, res) => {
    const { token, showVerificationForm } = await accounts.register(parse(registerBody, req.body), sessionRequest(req, res));
    res.status(201).json({ token, show_verification_form: showVerificationForm });
  });

  app.post('/auth/login', async (req, res) => {
    res.json(await accounts.login(parse(loginBody, req.body), sessionRequest(req, res)));
  });

  app.get('/auth/sessions', async (_req, res) => {
    res.json({ user_sessions: await sessions.list(userIdOf(res)) });
  });

  app.post('/auth/sessions/logout', async (req, res) => {
    const userId = userIdOf(res);
    const { session_id_hashes } = parse(logoutSessionsBody, req.body);
    announceRevoked(res, await sessions.logoutByHashes(userId, session_id_hashes));
    res.status(204).end();
  });

  app.post('/auth/logout', async (req, res) => {
    const userId = userIdOf(res);
    const body = parse(logoutBody, req.body) ?? {};
    announceRevoked(res, await sessions.logout(userId, sessionIdOf(res), tokensOf(body)));
    res.status(204).end();
  });

  app.get('/users/@me', async (_req, res) => {
    res.json(privateUser(await accounts.me(userIdOf(res))));
  });
}
