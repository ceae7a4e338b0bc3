import { ConfigError, parseConfig } from '@kith/platform';
import { describe, expect, it } from 'vitest';
import { authConfigSchema } from './config.js';

const base = { INTERNAL_TOKEN_PUBLIC_KEY: 'pem' };

function problems(env: Record<string, string>): string[] {
  try {
    parseConfig(authConfigSchema, env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
}

describe('auth configuration in production', () => {
  it('when NODE_ENV=production and the shared key, the SMS mode and the mail server are unset, then auth refuses to start naming all three', () => {
    expect(problems({ ...base, NODE_ENV: 'production', SERVICE_TOKEN_KEY: 'pem' }).map((p) => p.split(':')[0])).toEqual([
      'MFA_ELEVATION_KEY',
      'SMS_MODE',
      'SMTP_URL',
    ]);
  });

  it('when NODE_ENV=production and all three are set (texts to the log by choice), then it starts', () => {
    const env = {
      ...base,
      NODE_ENV: 'production',
      SERVICE_TOKEN_KEY: 'pem',
      MFA_ELEVATION_KEY: 'k'.repeat(32),
      SMS_MODE: 'log',
      SMTP_URL: 'smtp://mailpit:1025',
    };
    expect(problems(env)).toEqual([]);
  });

  it('when in development without them, then it starts with a per-process key, texts and mails to the log', () => {
    const config = parseConfig(authConfigSchema, base);
    expect([config.MFA_ELEVATION_KEY, config.SMS_MODE, config.SMTP_URL]).toEqual([undefined, 'log', undefined]);
  });
});
