import { describe, expect, it } from 'vitest';
import { isValidSecret, matchTotp, normalizeSecret, totpCode } from './totp.js';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const T = 1_700_000_000_000;

describe('TOTP', () => {
  it('when the code is the current one, then it matches the current step', () => {
    expect(matchTotp(SECRET, totpCode(SECRET, T), T)).toBe(Math.floor(T / 30_000));
  });

  it('when the code is one step old or ahead, then it matches that step; two steps away, then nothing', () => {
    expect(matchTotp(SECRET, totpCode(SECRET, T - 30_000), T)).toBe(Math.floor(T / 30_000) - 1);
    expect(matchTotp(SECRET, totpCode(SECRET, T + 30_000), T)).toBe(Math.floor(T / 30_000) + 1);
    expect(matchTotp(SECRET, totpCode(SECRET, T + 90_000), T)).toBeUndefined();
  });

  it('when the code is not six digits, then nothing', () => {
    for (const code of ['', '12345', '1234567', 'abcdef']) expect(matchTotp(SECRET, code, T)).toBeUndefined();
  });

  it('when a secret is shown in lowercase groups, then it is normalized and valid', () => {
    expect(normalizeSecret('jbsw y3dp ehpk 3pxp')).toBe('JBSWY3DPEHPK3PXP');
    expect(isValidSecret('jbsw y3dp ehpk 3pxp')).toBe(true);
  });

  it('when a secret is short or not base32, then it is invalid', () => {
    expect(isValidSecret('JBSWY3DPEHPK3PX')).toBe(false);
    expect(isValidSecret('JBSWY3DPEHPK3PX1')).toBe(false);
  });
});
