import type { Logger } from '@kith/platform';
import { redactPhone } from './redact.js';
import type { SmsSender } from '../domain/ports.js';

export class SmsDeliveryError extends Error {
  constructor(
    readonly status: number | undefined,
    detail: string,
  ) {
    super(`sms not accepted: ${detail}`);
    this.name = 'SmsDeliveryError';
  }
}

export interface TwilioOptions {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
  timeoutMs?: number;
}

/**
 * Twilio's Messages API: `POST /2010-04-01/Accounts/{sid}/Messages.json`, a form body of To, From
 * and Body, HTTP Basic auth with the account sid and auth token; 201 with the message resource.
 */
export class TwilioSms implements SmsSender {
  private readonly url: string;
  private readonly authorization: string;

  constructor(private readonly options: TwilioOptions) {
    const base = options.baseUrl.replace(/\/+$/, '');
    this.url = `${base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  }

  async send(to: string, body: string): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { authorization: this.authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ To: to, From: this.options.from, Body: body }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new SmsDeliveryError(undefined, err instanceof Error ? err.message : 'request failed');
    }
    const text = await res.text();
    if (res.status !== 200 && res.status !== 201) {
      // Twilio's error body carries its own numeric code and message; never the message text we sent.
      let detail = `status ${res.status}`;
      try {
        const error = JSON.parse(text) as { code?: unknown; message?: unknown };
        detail += ` code ${String(error.code)}: ${String(error.message)}`;
      } catch {
        // Not JSON: the status says enough.
      }
      throw new SmsDeliveryError(res.status, detail);
    }
  }
}

/** Development only (`SMS_MODE=log`): the text, code included, goes to the log; the number is redacted. */
export class LogSms implements SmsSender {
  constructor(private readonly logger: Logger) {}

  send(to: string, body: string): Promise<void> {
    this.logger.info(`sms to ${redactPhone(to)}: ${body}`);
    return Promise.resolve();
  }
}

export interface SmsConfig {
  SMS_MODE: 'log' | 'twilio';
  TWILIO_BASE_URL: string;
  TWILIO_ACCOUNT_SID?: string | undefined;
  TWILIO_AUTH_TOKEN?: string | undefined;
  TWILIO_FROM?: string | undefined;
}

export function createSms(config: SmsConfig, logger: Logger): SmsSender {
  if (config.SMS_MODE === 'log') return new LogSms(logger);
  // The config schema refuses twilio mode without these three.
  return new TwilioSms({
    baseUrl: config.TWILIO_BASE_URL,
    accountSid: config.TWILIO_ACCOUNT_SID ?? '',
    authToken: config.TWILIO_AUTH_TOKEN ?? '',
    from: config.TWILIO_FROM ?? '',
  });
}
