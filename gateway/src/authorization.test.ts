import { describe, expect, it } from 'vitest';
import { credentialOf, formMatches } from './authorization.js';

describe('credentialOf', () => {
  it('when the header carries a scheme, then the kind follows it (any case) and the token is what follows', () => {
    expect(credentialOf('abc.def')).toEqual({ kind: 'user', token: 'abc.def' });
    expect(credentialOf('Bot abc.def')).toEqual({ kind: 'bot', token: 'abc.def' });
    expect(credentialOf('bot  abc.def ')).toEqual({ kind: 'bot', token: 'abc.def' });
    expect(credentialOf('Bearer xyz')).toEqual({ kind: 'bearer', token: 'xyz' });
    expect(credentialOf('BEARER\txyz')).toEqual({ kind: 'bearer', token: 'xyz' });
    // Not a scheme: a token that merely starts with the letters.
    expect(credentialOf('Botanical')).toEqual({ kind: 'user', token: 'Botanical' });
  });
});

describe('formMatches', () => {
  it('when a token comes in its own kind’s form, then it matches; in another’s, it does not', () => {
    expect(formMatches('user', { bot: false })).toBe(true);
    expect(formMatches('bot', { bot: true })).toBe(true);
    expect(formMatches('bot', { bot: false })).toBe(false);
    expect(formMatches('user', { bot: true })).toBe(false);
    expect(formMatches('bearer', { bot: false })).toBe(false);
    expect(formMatches('bearer', { bot: true })).toBe(false);
  });
});
