import { describe, expect, it } from 'vitest';
import { MemoryTickets, MemoryWindows } from '../../../test/fakes/tickets.fake.js';
import { FingerprintsService } from './fingerprints.service.js';
import { RateLimitedError, RateLimiter } from './rate-limit.js';

const ids = () => {
  let n = 1_100_000_000_000_000_000n;
  return { next: () => String(n++) };
};

describe('FingerprintsService', () => {
  it('when a fingerprint is issued, then it is snowflake.secret and resolves to its snowflake', async () => {
    const service = new FingerprintsService(new MemoryTickets(), ids(), new RateLimiter(new MemoryWindows()));
    const fp = await service.issue('1.2.3.4');
    expect(fp).toMatch(/^1100000000000000000\.[A-Za-z0-9_-]{27}$/);
    expect(await service.idOf(fp)).toBe('1100000000000000000');
  });

  it('when a fingerprint was settled, then it no longer resolves', async () => {
    const service = new FingerprintsService(new MemoryTickets(), ids(), new RateLimiter(new MemoryWindows()));
    const fp = await service.issue('1.2.3.4');
    await service.settle(fp);
    expect(await service.idOf(fp)).toBeUndefined();
  });

  it('when the secret is altered or the format is wrong, then nothing resolves', async () => {
    const service = new FingerprintsService(new MemoryTickets(), ids(), new RateLimiter(new MemoryWindows()));
    const fp = await service.issue('1.2.3.4');
    const [id, secret] = fp.split('.') as [string, string];
    expect(await service.idOf(`${id}.${secret.slice(0, -1)}x`)).toBeUndefined();
    expect(await service.idOf(`${BigInt(id) + 1n}.${secret}`)).toBeUndefined();
    expect(await service.idOf('garbage')).toBeUndefined();
  });

  it('when one address asks for more fingerprints than its window allows, then RateLimitedError', async () => {
    const service = new FingerprintsService(new MemoryTickets(), ids(), new RateLimiter(new MemoryWindows()));
    // 100 fingerprints per address in ten minutes, pinned here rather than read from the code.
    for (let i = 0; i < 100; i++) await service.issue('1.2.3.4');
    await expect(service.issue('1.2.3.4')).rejects.toBeInstanceOf(RateLimitedError);
    await expect(service.issue('5.6.7.8')).resolves.toMatch(/\./);
  });
});
