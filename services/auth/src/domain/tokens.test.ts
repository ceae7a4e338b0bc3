import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashToken, newSessionId, newToken, sessionIdHash } from './tokens.js';

describe('newToken', () => {
  it('when a token is made, then its secret part carries at least 128 random bits', () => {
    const { token } = newToken('175928847299117063');
    const secret = token.split('.')[1]!;
    expect(Buffer.from(secret, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(secret).toMatch(/^[\w-]+$/);
  });

  it('when many tokens are made for one user, then no two are alike', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newToken('1').token));
    expect(tokens.size).toBe(1000);
  });

  it('when a token is made, then it names its user and its hash is the SHA-256 of the whole token', () => {
    const { token, hash } = newToken('175928847299117063');
    expect(Buffer.from(token.split('.')[0]!, 'base64url').toString()).toBe('175928847299117063');
    expect(hash.equals(createHash('sha256').update(token).digest())).toBe(true);
    expect(hash).toHaveLength(32);
  });
});

describe('hashToken', () => {
  it('when the same token is hashed twice, then the hashes are equal, and a different token hashes differently', () => {
    expect(hashToken('abc').equals(hashToken('abc'))).toBe(true);
    expect(hashToken('abc').equals(hashToken('abd'))).toBe(false);
    expect(hashToken('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('newSessionId', () => {
  it('when a session id is made, then it is 128 random bits in hex and its id hash is the base64 SHA-256 of it', () => {
    const { id, idHash } = newSessionId();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(idHash).toBe(createHash('sha256').update(id).digest('base64'));
    expect(sessionIdHash(id)).toBe(idHash);
  });

  it('when two session ids are made, then they and their hashes differ', () => {
    const a = newSessionId();
    const b = newSessionId();
    expect(a.id).not.toBe(b.id);
    expect(a.idHash).not.toBe(b.idHash);
  });
});
