import { randomInt } from 'node:crypto';
import { ApiError, type Logger } from '@kith/platform';
import { digest, randomSecret, sameDigest } from './digest.js';
import { RateLimitedError, type RateLimiter, type RateRule } from './rate-limit.js';
import type { SmsSender, OneTimeValues } from '../ports.js';

export const CODE_TTL_MS = 10 * 60_000;
export const PHONE_TOKEN_TTL_MS = 15 * 60_000;

/** Texts cost money and reach people: a number gets few, an address a few more (many numbers). */
export const SEND_PER_PHONE: RateRule = { name: 'phone-send:phone', limit: 3, windowMs: CODE_TTL_MS };
export const SEND_PER_IP: RateRule = { name: 'phone-send:ip', limit: 10, windowMs: 60 * 60_000 };
/** A million codes, five guesses per window. */
export const VERIFY_PER_PHONE: RateRule = { name: 'phone-verify:phone', limit: 5, windowMs: CODE_TTL_MS };

const INVALID_CODE = { code: 'PHONE_VERIFICATION_CODE_INVALID', message: 'Invalid verification code.' };
const UNABLE_TO_SEND = { code: 'PHONE_NUMBER_UNABLE_TO_SEND', message: 'Unable to send a verification code to this phone number.' };

/**
 * Codes by SMS and the phone tokens they earn. Whether a number belongs to an account never
 * changes an answer here: registration's uniqueness check is the only place that tells.
 */
export class PhoneVerificationService {
  constructor(
    private readonly tickets: OneTimeValues,
    private readonly limiter: RateLimiter,
    private readonly sms: SmsSender,
    private readonly logger: Logger,
    /** Numbers a revert blacklisted: refused as an undeliverable number is, so no account gets them again. */
    private readonly blacklisted?: (phone: string) => Promise<boolean>,
  ) {}

  async send(phone: string, clientIp: string): Promise<void> {
    await this.limiter.consume(SEND_PER_IP, clientIp || 'unknown');
    await this.limiter.consume(SEND_PER_PHONE, phone);
    if (await this.blacklisted?.(phone)) throw ApiError.form({ phone: UNABLE_TO_SEND });
    if (!(await this.sendCode(phone))) throw ApiError.form({ phone: UNABLE_TO_SEND });
  }

  /**
   * Resend Verification Code: a new code, under the same limits as the first, but only where a
   * code is pending. Always answers the same, so it tells nobody whether a reset by phone (and so
   * an account with that number) is under way; it is not a way to text arbitrary numbers either.
   */
  async resend(phone: string, clientIp: string): Promise<void> {
    await this.limiter.consume(SEND_PER_IP, clientIp || 'unknown');
    await this.limiter.consume(SEND_PER_PHONE, phone);
    if (await this.tickets.get(codeKey(phone))) await this.sendCode(phone);
  }

  /**
   * Texts a code for a login from a new place (the login's own limits apply), under the number's
   * send limit: past it nothing is sent and the code sent before still works. Never throws for the
   * text, so the login's answer tells nothing of delivery.
   */
  async textCode(phone: string): Promise<void> {
    const allowed = await this.limiter.consume(SEND_PER_PHONE, phone).then(
      () => true,
      (err: unknown) => {
        if (err instanceof RateLimitedError) return false;
        throw err;
      },
    );
    if (allowed) await this.sendCode(phone);
  }

  /**
   * Texts a new code without the send limits (the caller's own limits apply: Forgot Password's);
   * false when the text could not be delivered (the code is then dropped, and the failure logged).
   */
  async sendCode(phone: string): Promise<boolean> {
    const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
    await this.tickets.put(codeKey(phone), digest(phone, code), CODE_TTL_MS);
    try {
      await this.sms.send(phone, `Your Kith verification code is ${code}. It expires in 10 minutes.`);
      return true;
    } catch (err) {
      await this.tickets.delete(codeKey(phone));
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'sms delivery failed');
      return false;
    }
  }

  /** A right code for the number earns a single-use token that proves the number at registration. */
  async verify(phone: string, code: string): Promise<string> {
    await this.limiter.consume(VERIFY_PER_PHONE, phone);
    const expected = await this.tickets.get(codeKey(phone));
    if (!expected || !sameDigest(expected, digest(phone, code))) throw ApiError.form({ code: INVALID_CODE });
    await this.tickets.delete(codeKey(phone));
    const token = randomSecret();
    await this.tickets.put(tokenKey(token), phone, PHONE_TOKEN_TTL_MS);
    return token;
  }

  /** The verified number behind a phone token that is still unused. */
  async phoneOf(token: string): Promise<string | undefined> {
    return (await this.tickets.get(tokenKey(token))) ?? undefined;
  }

  async settle(token: string): Promise<void> {
    await this.tickets.delete(tokenKey(token));
  }

  /** Spends a phone token: of two concurrent spenders only one gets the number. */
  async take(token: string): Promise<string | undefined> {
    return (await this.tickets.take(tokenKey(token))) ?? undefined;
  }
}

const codeKey = (phone: string) => `phone:code:${digest(phone)}`;
const tokenKey = (token: string) => `phone:token:${digest(token)}`;
