import { describe, expect, it } from 'vitest';
import { generateBackupCodes, hashBackupCode, looksLikeBackupCode, openBackupCode, sealBackupCode } from './backup-codes.js';

describe('backup codes', () => {
  it('when generated, then ten distinct codes of eight lowercase letters and digits', () => {
    const codes = generateBackupCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z0-9]{8}$/);
  });

  it('when typed with a dash or in capitals, then it hashes like the code', () => {
    expect(hashBackupCode('ABCD-efgh').equals(hashBackupCode('abcdefgh'))).toBe(true);
    expect(looksLikeBackupCode('ABCD-efgh')).toBe(true);
    expect(looksLikeBackupCode('123456')).toBe(false);
  });

  it('when sealed, then it opens with the same secret and user only', () => {
    const sealed = sealBackupCode('abcdefgh', 'SECRET', '1');
    expect(sealed).not.toContain('abcdefgh');
    expect(openBackupCode(sealed, 'SECRET', '1')).toBe('abcdefgh');
    expect(() => openBackupCode(sealed, 'SECRET', '2')).toThrow();
  });
});
