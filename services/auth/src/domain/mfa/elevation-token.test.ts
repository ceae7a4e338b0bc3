import { describe, expect, it } from 'vitest';
import { ElevationTokens } from './elevation-token.js';

const KEY = Buffer.alloc(32, 7);

describe('ElevationTokens', () => {
  it('when signed for a user, then valid for that user only', () => {
    const tokens = new ElevationTokens(KEY);
    const token = tokens.sign('42');
    expect(tokens.verify(token, '42')).toBe(true);
    expect(tokens.verify(token, '43')).toBe(false);
  });

  it('when five minutes have passed, then expired', () => {
    let now = 1_700_000_000_000;
    const tokens = new ElevationTokens(KEY, () => now);
    const token = tokens.sign('42');
    now += 299_000;
    expect(tokens.verify(token, '42')).toBe(true);
    now += 1_000;
    expect(tokens.verify(token, '42')).toBe(false);
  });

  it('when signed with another key, tampered, garbage or absent, then invalid', () => {
    const tokens = new ElevationTokens(KEY);
    const other = new ElevationTokens(Buffer.alloc(32, 8)).sign('42');
    const [h, , s] = tokens.sign('42').split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ aud: 'kith-mfa-reprompt', sub: '42', exp: 9e9 })).toString('base64url')}.${s}`;
    for (const token of [other, forged, 'a.b.c', '', undefined]) expect(tokens.verify(token, '42')).toBe(false);
  });
});
