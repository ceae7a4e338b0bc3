import type { Express, RequestHandler } from 'express';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { z } from 'zod';
import { identityOf, lengthString, parse } from '@kith/platform';
import type { FingerprintsService } from '../domain/registration/fingerprints.service.js';
import { locationMetadata } from '../domain/registration/location.js';
import { passwordStrength } from '../domain/registration/password-strength.js';
import type { PhoneVerificationService } from '../domain/registration/phone-verification.service.js';
import type { UsernamesService } from '../domain/registration/usernames.service.js';
import { rateLimited } from './rate-limited.js';
import { password, username } from './schemas.js';

/** E.164 exactly (`+` and digits, as libphonenumber formats it) and a number that can exist. */
const phone = z.string().refine(
  (v) => {
    const parsed = /^\+[1-9]\d{6,14}$/.test(v) ? parsePhoneNumberFromString(v) : undefined;
    return parsed !== undefined && parsed.isValid() && parsed.number === v;
  },
  { params: { code: 'PHONE_NUMBER_INVALID', message: 'Invalid phone number.' } },
);

const passwordBody = z.object({ password });
const suggestionsQuery = z.object({ global_name: z.string().max(32).optional() });
const usernameBody = z.object({ username });
const phoneBody = z.object({ phone });
const verifyBody = z.object({ phone, code: lengthString(1, 16) });

export interface RegistrationHelpers {
  usernames: UsernamesService;
  phones: PhoneVerificationService;
  fingerprints: FingerprintsService;
}

/**
 * What registering needs besides POST /auth/register itself. Call before the route that registers:
 * it adds the caller's `X-Fingerprint` to that route's body.
 */
export function registrationRoutes(app: Express, helpers: RegistrationHelpers): void {
  app.post('/auth/register', fingerprintFromHeader);

  app.get('/auth/location-metadata', (_req, res) => {
    res.json(locationMetadata(identityOf(res).clientIp));
  });

  app.post('/auth/password/validate', (req, res) => {
    res.json(passwordStrength(parse(passwordBody, req.body).password));
  });

  app.get('/unique-username/username-suggestions-unauthed', async (req, res) => {
    res.json({ username: await helpers.usernames.suggest(parse(suggestionsQuery, req.query).global_name) });
  });

  app.post('/unique-username/username-attempt-unauthed', async (req, res) => {
    res.json({ taken: await helpers.usernames.isTaken(parse(usernameBody, req.body).username) });
  });

  app.get('/experiments', async (_req, res) => {
    // Signed-in users are their own experiment subject; only anonymous callers need a fingerprint.
    if (identityOf(res).userId) return void res.json({ assignments: [] });
    res.json({ fingerprint: await helpers.fingerprints.issue(identityOf(res).clientIp), assignments: [] });
  });

  app.post('/auth/register/phone', async (req, res) => {
    await helpers.phones.send(parse(phoneBody, req.body).phone, identityOf(res).clientIp);
    res.status(204).end();
  });

  app.post('/phone-verifications/resend', async (req, res) => {
    await helpers.phones.resend(parse(phoneBody, req.body).phone, identityOf(res).clientIp);
    res.status(204).end();
  });

  app.post('/phone-verifications/verify', async (req, res) => {
    const body = parse(verifyBody, req.body);
    res.json({ token: await helpers.phones.verify(body.phone, body.code) });
  });

  app.use(rateLimited);
}

/**
 * The `X-Fingerprint` header (which the gateway carries in the identity) stands in for the body
 * field when the body has none: clients send both, or just the header.
 */
const fingerprintFromHeader: RequestHandler = (req, res, next) => {
  const { fingerprint } = identityOf(res);
  const body: unknown = req.body;
  if (fingerprint && typeof body === 'object' && body !== null && !Array.isArray(body) && !('fingerprint' in body))
    req.body = { ...body, fingerprint };
  next();
};
