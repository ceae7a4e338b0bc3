import type { Logger } from '@kith/platform';
import { describe, expect, it, vi } from 'vitest';
import { redactEmail, redactPhone } from './redact.js';
import { LogSms, TwilioSms, createSms } from './sms.js';

const fakeLogger = () => ({ info: vi.fn(), warn: vi.fn() });

describe('redaction', () => {
  it('when a phone number is redacted, then only the country digit and the last two digits show', () => {
    expect(redactPhone('+15551234589')).toBe('+1********89');
    expect(redactPhone('+447700900123')).toBe('+4*********23');
    expect(redactPhone('+123')).toBe('+***');
  });

  it('when an email is redacted, then only its first letter and domain show', () => {
    expect(redactEmail('alice@example.com')).toBe('a***@example.com');
    expect(redactEmail('nope')).toBe('***');
  });
});

describe('LogSms', () => {
  it('when a text is sent in log mode, then the log line has the redacted number and the text', async () => {
    const logger = fakeLogger();
    await new LogSms(logger as unknown as Logger).send('+15551234589', 'Your code is 123456');
    expect(logger.info).toHaveBeenCalledWith('sms to +1********89: Your code is 123456');
    expect(JSON.stringify(logger.info.mock.calls)).not.toContain('5551234589');
  });
});

describe('createSms', () => {
  const base = {
    TWILIO_BASE_URL: 'https://api.twilio.com',
    TWILIO_ACCOUNT_SID: 'AC1',
    TWILIO_AUTH_TOKEN: 't',
    TWILIO_FROM: '+15005550006',
  };

  it('when SMS_MODE is log, then texts go to the log', () => {
    expect(createSms({ ...base, SMS_MODE: 'log' }, fakeLogger() as unknown as Logger)).toBeInstanceOf(LogSms);
  });

  it('when SMS_MODE is twilio, then texts go to Twilio', () => {
    expect(createSms({ ...base, SMS_MODE: 'twilio' }, fakeLogger() as unknown as Logger)).toBeInstanceOf(TwilioSms);
  });
});
