import { describe, expect, it } from 'vitest';
import { normalizeLocale } from './locale.js';

describe('locales', () => {
  it('when the locale is a language tag, then it is written xx-YY', () => {
    expect(normalizeLocale('pt_br')).toBe('pt-BR');
    expect(normalizeLocale('FR')).toBe('fr');
    expect(normalizeLocale('es-419')).toBe('es-419');
  });

  it('when it is absent or anything else, then it is en-US', () => {
    expect(normalizeLocale(undefined)).toBe('en-US');
    expect(normalizeLocale('')).toBe('en-US');
    expect(normalizeLocale('en-US; DROP')).toBe('en-US');
    expect(normalizeLocale('x'.repeat(300))).toBe('en-US');
  });
});
