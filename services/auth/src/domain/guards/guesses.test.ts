import { describe, expect, it } from 'vitest';
import { OverloadedError } from '@kith/platform';
import { MemoryWindows } from '../../../test/fakes/tickets.fake.js';
import { userRow } from '../../../test/fakes/users.fake.js';
import { RateLimitedError } from '../registration/rate-limit.js';
import { GuessLimits } from './guesses.js';

const RULE = { name: 'password', limit: 3, windowMs: 60_000 };

describe('GuessLimits', () => {
  it('when checks are refused before they run (too busy, 503), then they count against no limit; wrong guesses still do', async () => {
    const guesses = new GuessLimits(new MemoryWindows(), { password: RULE, 'second-factor': RULE });
    const user = userRow({ id: '7' });
    for (let i = 0; i < 10; i++)
      await expect(guesses.guess('password', user, () => Promise.reject(new OverloadedError('busy')))).rejects.toBeInstanceOf(
        OverloadedError,
      );
    for (let i = 0; i < RULE.limit; i++) expect(await guesses.guess('password', user, () => Promise.resolve(false))).toBe(false);
    await expect(guesses.guess('password', user, () => Promise.resolve(true))).rejects.toBeInstanceOf(RateLimitedError);
  });
});
