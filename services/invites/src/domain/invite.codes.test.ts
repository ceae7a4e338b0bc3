import { describe, expect, it } from 'vitest';
import { isInviteCode, newInviteCode } from './invite.codes.js';

describe('invite codes', () => {
  it('when many codes are drawn, then each is 10 characters of [A-Za-z0-9] and none repeats', () => {
    const codes = Array.from({ length: 5000 }, newInviteCode);
    for (const code of codes) expect(code).toMatch(/^[A-Za-z0-9]{10}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('when codes are drawn, then every character of the alphabet turns up', () => {
    const seen = new Set(Array.from({ length: 2000 }, newInviteCode).join(''));
    expect(seen.size).toBe(62);
  });

  it('when a code is checked, then only 8 to 10 alphanumerics pass', () => {
    expect(isInviteCode('abcDEF12')).toBe(true);
    expect(isInviteCode('abcDEF1234')).toBe(true);
    expect(isInviteCode('abcDEF1')).toBe(false);
    expect(isInviteCode('abcDEF12345')).toBe(false);
    expect(isInviteCode('abcDEF1-')).toBe(false);
    expect(isInviteCode('abcdéf12')).toBe(false);
  });
});
