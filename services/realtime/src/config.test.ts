import { ConfigError, parseConfig } from '@kith/platform';
import { describe, expect, it } from 'vitest';
import { realtimeConfigSchema } from './config.js';

const base = { INTERNAL_TOKEN_PUBLIC_KEY: 'pem' };

describe('realtime configuration in production', () => {
  it('when NODE_ENV=production without a replica id or a public socket URL, then realtime refuses to start naming both', () => {
    let problems: string[] = [];
    try {
      parseConfig(realtimeConfigSchema, { ...base, NODE_ENV: 'production', SERVICE_TOKEN_KEY: 'pem' });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems.map((p) => p.split(':')[0])).toEqual(['REPLICA_ID', 'PUBLIC_GATEWAY_URL']);
  });

  it('when in development without them, then the replica id comes from the host name and port', () => {
    const config = parseConfig(realtimeConfigSchema, base);
    expect(config.REPLICA_ID).toMatch(/-8108$/);
    expect(config.PUBLIC_GATEWAY_URL).toBe('ws://127.0.0.1:8080/gateway');
  });
});
