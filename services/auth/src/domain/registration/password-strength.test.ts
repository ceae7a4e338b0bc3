import { describe, expect, it } from 'vitest';
import { MIN_PASSWORD_SCORE, passwordStrength } from './password-strength.js';

describe('passwordStrength', () => {
  it('when the password is a common one, then it scores 0 and is not valid', () => {
    expect(passwordStrength('password')).toEqual({ valid: false, password_strength: 0 });
    expect(passwordStrength('qwertyuiop')).toEqual({ valid: false, password_strength: 0 });
  });

  it('when the password is long and unusual, then it scores 4 and is valid', () => {
    expect(passwordStrength('violet-Harbor-71-quokka!')).toEqual({ valid: true, password_strength: 4 });
  });

  it('when the password repeats a user input, then it scores lower than without it', () => {
    const alone = passwordStrength('gnarpgnap1990').password_strength;
    expect(passwordStrength('gnarpgnap1990', ['gnarpgnap']).password_strength).toBeLessThan(alone);
  });

  it('when a score reaches the policy minimum, then it is valid, and below it is not', () => {
    for (const password of ['aaaaaaaa', 'Tr0ub4dor&3', 'correct horse battery staple', 'zx81-Spectrum']) {
      const result = passwordStrength(password);
      expect(result.valid).toBe(result.password_strength >= MIN_PASSWORD_SCORE);
      expect(result.password_strength).toBeGreaterThanOrEqual(0);
      expect(result.password_strength).toBeLessThanOrEqual(4);
    }
  });
});
