import type { Express } from 'express';
import { z } from 'zod';
import { ApiError, parse, snowflakeField, userIdOf } from '@kith/platform';
import type { UserRow } from '../domain/ports.js';
import type { AgeVerificationService } from '../domain/standing/age-verification.service.js';
import type { StandingService } from '../domain/standing/standing.service.js';

const suspendedBody = z.object({ token: z.string().min(1).max(256) });
const reviewBody = z.object({ signal: z.number().int().min(0).max(100), user_input: z.string().max(1000).optional() });
const verificationBody = suspendedBody.extend({ from_classification_id: snowflakeField.nullish() });
const classificationParams = z.object({ classification_id: snowflakeField });

/**
 * The safety hub (userdoccers `resources/safety-hub`): a signed-in user's standing and appeals,
 * and the suspended user's, whose token travels in the body: the only routes it opens.
 */
export function safetyHubRoutes(
  app: Express,
  standing: StandingService,
  users: { findById(id: string): Promise<UserRow | undefined> },
  ageVerification: AgeVerificationService,
): void {
  const userOf = async (id: string): Promise<UserRow> => {
    const user = await users.findById(id);
    if (!user) throw ApiError.of('INVALID_AUTH_TOKEN');
    return user;
  };

  app.get('/safety-hub/@me', async (_req, res) => {
    res.json(await standing.hub(await userOf(userIdOf(res))));
  });

  app.put('/safety-hub/request-review/:classification_id', async (req, res) => {
    const userId = userIdOf(res);
    const { classification_id } = parse(classificationParams, req.params);
    const body = parse(reviewBody, req.body);
    res.json(await standing.requestReview(userId, classification_id, body.signal, body.user_input ?? ''));
  });

  app.post('/safety-hub/suspended/@me', async (req, res) => {
    const userId = await standing.suspendedUser(parse(suspendedBody, req.body).token);
    res.json(await standing.hub(await userOf(userId)));
  });

  // Age verification (the provider's webview), for a suspended user only: the token in the body.
  app.post('/safety-hub/suspended/request-verification', async (req, res) => {
    const userId = await standing.suspendedUser(parse(verificationBody, req.body).token);
    res.json(await ageVerification.request(userId));
  });

  app.post('/safety-hub/suspended/check-verification', async (req, res) => {
    const userId = await standing.suspendedUser(parse(suspendedBody, req.body).token);
    res.json(await ageVerification.check(userId));
  });

  app.put('/safety-hub/suspended/request-review/:classification_id', async (req, res) => {
    const { classification_id } = parse(classificationParams, req.params);
    const body = parse(reviewBody.merge(suspendedBody), req.body);
    const userId = await standing.suspendedUser(body.token);
    res.json(await standing.requestReview(userId, classification_id, body.signal, body.user_input ?? ''));
  });
}
