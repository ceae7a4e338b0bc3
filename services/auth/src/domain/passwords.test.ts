import { describe, expect, it } from 'vitest';
import { OverloadedError, WorkQueue } from '@kith/platform';
import { PasswordHasher } from './passwords.js';

const hasher = new PasswordHasher({ memoryKiB: 19456, iterations: 2 });

describe('PasswordHasher', () => {
  it('when a password is hashed, then the result is an argon2id hash with m=19456 KiB, t=2, p=1', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    expect(hash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
    expect(hash).not.toContain('correct horse');
  });

  it('when the same password is hashed twice, then the salts differ', async () => {
    expect(await hasher.hash('same password')).not.toBe(await hasher.hash('same password'));
  });

  it('when a higher cost is configured, then the hash records it', async () => {
    const hash = await new PasswordHasher({ memoryKiB: 32768, iterations: 3 }).hash('pw');
    expect(hash.startsWith('$argon2id$v=19$m=32768,t=3,p=1$')).toBe(true);
  });

  it('when the right password is given, then verify is true; when a wrong one, false', async () => {
    const hash = await hasher.hash('correct horse battery staple');
    expect(await hasher.verify(hash, 'correct horse battery staple')).toBe(true);
    expect(await hasher.verify(hash, 'Correct horse battery staple')).toBe(false);
    expect(await hasher.verify(hash, '')).toBe(false);
  });

  it('when there is no stored hash, then verify is false', async () => {
    expect(await hasher.verify(null, 'anything')).toBe(false);
  });

  it('when the stored hash is not an argon2 hash, then verify is false rather than throwing', async () => {
    expect(await hasher.verify('not-a-hash', 'anything')).toBe(false);
  });
});

describe('PasswordHasher under a surge', () => {
  it('when more hashes come than may run or wait, then the extra one is refused with OverloadedError, and a refused check is never a wrong password', async () => {
    const queue = new WorkQueue({ name: 'password hashing', concurrency: 1, maxWaiting: 0, maxWaitMs: 60_000 });
    const busy = new PasswordHasher({ memoryKiB: 19456, iterations: 2, queue });
    const stored = await busy.hash('correct horse battery staple');
    // The unknown-login stand-in hash is made once, on first use.
    expect(await busy.verify(null, 'warm up')).toBe(false);
    const first = busy.hash('first');
    await expect(busy.hash('second')).rejects.toBeInstanceOf(OverloadedError);
    await expect(busy.verify(stored, 'correct horse battery staple')).rejects.toBeInstanceOf(OverloadedError);
    await expect(busy.verify(null, 'anything')).rejects.toBeInstanceOf(OverloadedError);
    expect((await first).startsWith('$argon2id$')).toBe(true);
    expect(await busy.verify(stored, 'correct horse battery staple')).toBe(true);
  });
});
