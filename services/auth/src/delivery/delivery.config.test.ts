import { describe, expect, it } from 'vitest';
import { authConfigSchema } from '../config.js';

const base = { INTERNAL_TOKEN_PUBLIC_KEY: 'pem' };

describe('delivery config', () => {
  it('when nothing is set, then texts go to the log and mails to the log (no SMTP_URL)', () => {
    const config = authConfigSchema.parse(base);
    expect(config.SMS_MODE).toBe('log');
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.TWILIO_BASE_URL).toBe('https://api.twilio.com');
  });

  it('when SMS_MODE is twilio without its keys, then each missing key is listed', () => {
    const result = authConfigSchema.safeParse({ ...base, SMS_MODE: 'twilio' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM']);
  });

  it('when SMS_MODE is twilio with its keys, then the config parses', () => {
    const config = { ...base, SMS_MODE: 'twilio', TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+15005550006' };
    expect(authConfigSchema.safeParse(config).success).toBe(true);
  });

  it('when SMTP_URL is not an smtp URL, then it is refused', () => {
    expect(authConfigSchema.safeParse({ ...base, SMTP_URL: 'http://mail' }).success).toBe(false);
    expect(authConfigSchema.safeParse({ ...base, SMTP_URL: 'smtp://mailpit:1025' }).success).toBe(true);
  });
});
