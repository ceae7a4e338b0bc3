import type { Express } from 'express';
import { z } from 'zod';
import { identityOf, parse, userIdOf } from '@kith/platform';
import type { SmsCodes } from '../domain/mfa/sms.js';
import type { SmsEnrollment } from '../domain/mfa/sms-enrollment.js';
import { elevationProofOf } from './mfa.routes.js';

const e164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'Invalid phone number');
const changePhoneReason = z.string().max(64).nullish();

const addPhoneBody = z.object({
  phone: e164.optional(),
  phone_token: z.string().min(1).max(256).optional(),
  password: z.string().max(4096).optional(),
  change_phone_reason: changePhoneReason,
});

const removePhoneBody = z.object({ password: z.string().max(4096).optional(), change_phone_reason: changePhoneReason });
const passwordBody = z.object({ password: z.string().max(4096).optional() });
const sendBody = z.object({ ticket: z.string().min(1).max(512) });

/** The phone on the account, SMS MFA enrollment, and texting an MFA code for a ticket. */
export function phoneRoutes(app: Express, enrollment: SmsEnrollment, codes: SmsCodes): void {
  app.post('/users/@me/phone', async (req, res) => {
    await enrollment.addPhone(userIdOf(res), parse(addPhoneBody, req.body), identityOf(res).clientIp);
    res.status(204).end();
  });

  app.delete('/users/@me/phone', async (req, res) => {
    await enrollment.removePhone(userIdOf(res), parse(removePhoneBody, req.body).password);
    res.status(204).end();
  });

  app.post('/users/@me/mfa/sms/enable', async (req, res) => {
    await enrollment.enable(userIdOf(res), parse(passwordBody, req.body).password);
    res.status(204).end();
  });

  app.post('/users/@me/mfa/sms/disable', async (req, res) => {
    await enrollment.disable(userIdOf(res), parse(passwordBody, req.body).password, elevationProofOf(req, res));
    res.status(204).end();
  });

  app.post('/auth/mfa/sms/send', async (req, res) => {
    res.json(await codes.send(parse(sendBody, req.body).ticket));
  });
}
