import { describe, expect, it } from 'vitest';
import { ElevationTokens } from './elevation-token.js';

const KEY = Buffer.alloc(32, 7);

describe('ElevationTokens', () => {
  it('when signed for a user session, then valid for that user and session only', () => {
    const tokens = new ElevationTokens(KEY);
    const token = tokens.sign('42', 'session-a');
    expect(tokens.verify(token, '42', 'session-a')).toBe(true);
    expect(tokens.verify(token, '43', 'session-a')).toBe(false);
    expect(tokens.verify(token, '42', 'session-b')).toBe(false);
  });

  it('when the token is read, then it names the session only by the hash clients already see', () => {
    const token = new ElevationTokens(KEY).sign('42', 'session-a');
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(JSON.stringify(claims)).not.toContain('session-a');
    expect(claims.sid).toEqual(expect.any(String));
  });

  it('when five minutes have passed, then expired', () => {
    let now = 1_700_000_000_000;
    const tokens = new ElevationTokens(KEY, () => now);
    const token = tokens.sign('42', 's');
    now += 299_000;
    expect(tokens.verify(token, '42', 's')).toBe(true);
    now += 1_000;
    expect(tokens.verify(token, '42', 's')).toBe(false);
  });

  it('when signed with another key, tampered, garbage or absent, then invalid', () => {
    const tokens = new ElevationTokens(KEY);
    const other = new ElevationTokens(Buffer.alloc(32, 8)).sign('42', 's');
    const [h, , s] = tokens.sign('42', 's').split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ aud: 'kith-mfa-reprompt', sub: '42', exp: 9e9 })).toString('base64url')}.${s}`;
    for (const token of [other, forged, 'a.b.c', '', undefined]) expect(tokens.verify(token, '42', 's')).toBe(false);
  });
});
