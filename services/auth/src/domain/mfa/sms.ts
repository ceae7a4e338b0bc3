import { randomInt } from 'node:crypto';
import { ApiError, type Logger } from '@kith/platform';
import { digest, sameDigest } from '../registration/digest.js';
import type { RateLimiter, RateRule } from '../registration/rate-limit.js';
import type { TicketRecord, Tickets } from './tickets.js';
import type { SmsSender, UserRow, OneTimeValues } from '../ports.js';

/** An SMS code lives five minutes and works once, for the ticket it was sent for. */
export const SMS_CODE_TTL_MS = 5 * 60_000;
/** Texts cost money and reach a person: a few per ticket, a few more per user. */
export const SMS_SEND_PER_TICKET: RateRule = { name: 'mfa-sms-send:ticket', limit: 3, windowMs: SMS_CODE_TTL_MS };
export const SMS_SEND_PER_USER: RateRule = { name: 'mfa-sms-send:user', limit: 6, windowMs: 15 * 60_000 };

const UNABLE_TO_SEND = { code: 'PHONE_NUMBER_UNABLE_TO_SEND', message: 'Unable to send a verification code to this phone number.' };

/** `+15551231234` → `+*******1234`, as the platform answers Send MFA SMS. */
export function redactMfaPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  const shown = digits.slice(-4);
  return `+${'*'.repeat(Math.max(digits.length - shown.length, 0))}${shown}`;
}

/** Whether the user can receive SMS codes as a second factor. */
export const smsEnabled = (user: UserRow): boolean => user.mfa_enabled && user.sms_mfa_enabled && user.phone !== null;

export interface SmsCodePorts {
  tickets: Tickets;
  users: { user(userId: string): Promise<UserRow> };
  codes: OneTimeValues;
  limiter: RateLimiter;
  sms: SmsSender;
  logger: Logger;
}

/**
 * SMS codes for a login or elevation ticket: `POST /auth/mfa/sms/send` texts one, and the code then
 * proves the factor once for that ticket. Only hashes of codes are stored.
 */
export class SmsCodes {
  constructor(private readonly ports: SmsCodePorts) {}

  /** Texts a fresh code to the ticket's user; answers the redacted number. */
  async send(ticket: string): Promise<{ phone: string }> {
    const record = await this.open(ticket);
    const user = await this.ports.users.user(record.userId);
    if (!smsEnabled(user) || !user.phone) throw ApiError.of('SMS_MFA_NOT_ENABLED');
    await this.ports.limiter.consume(SMS_SEND_PER_TICKET, ticket);
    await this.ports.limiter.consume(SMS_SEND_PER_USER, user.id);
    const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
    const key = codeKey(ticket);
    await this.ports.codes.put(key, digest(user.id, code), SMS_CODE_TTL_MS);
    try {
      await this.ports.sms.send(user.phone, `Your Kith security code is ${code}. It expires in 5 minutes. Never share it.`);
    } catch (err) {
      await this.ports.codes.delete(key);
      this.ports.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'mfa sms delivery failed');
      throw ApiError.form({ phone: UNABLE_TO_SEND });
    }
    return { phone: redactMfaPhone(user.phone) };
  }

  /** Whether `code` is the one texted for this ticket; a right code is spent. */
  async verify(ticket: string, user: UserRow, code: string): Promise<boolean> {
    if (!smsEnabled(user) || !/^\d{6}$/.test(code)) return false;
    const key = codeKey(ticket);
    const expected = await this.ports.codes.get(key);
    if (!expected || !sameDigest(expected, digest(user.id, code))) return false;
    return (await this.ports.codes.take(key)) !== null;
  }

  /** A login, elevation or password-reset ticket: each may ask for a code (60006 for anything else). */
  private async open(ticket: string): Promise<TicketRecord> {
    for (const purpose of ['login', 'elevation'] as const) {
      const record = await this.ports.tickets.open(ticket, purpose).catch(() => undefined);
      if (record) return record;
    }
    return this.ports.tickets.open(ticket, 'reset');
  }
}

const codeKey = (ticket: string): string => `mfa:sms-code:${digest(ticket)}`;
