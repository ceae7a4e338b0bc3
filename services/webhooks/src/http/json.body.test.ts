import { describe, expect, it } from 'vitest';
import { OverloadedError } from '@kith/platform';
import { ByteBudget } from './json.body.js';

describe('ByteBudget', () => {
  it('when the budget is taken, then later asks wait in order and start as bytes come back; a body bigger than it waits for all of it', async () => {
    const budget = new ByteBudget(100);
    const first = await budget.acquire(60);
    const started: string[] = [];
    const second = budget.acquire(50).then((release) => (started.push('second'), release));
    const huge = budget.acquire(1000).then((release) => (started.push('huge'), release));
    await Promise.resolve();
    expect(started).toEqual([]);
    first();
    const releaseSecond = await second;
    expect(started).toEqual(['second']);
    expect(budget.inUse).toBe(50);
    releaseSecond();
    releaseSecond();
    (await huge)();
    expect(started).toEqual(['second', 'huge']);
    expect(budget.inUse).toBe(0);
  });

  it('when the line of waiting bodies is full, then a refusal the client is told to retry', async () => {
    const budget = new ByteBudget(10);
    const held = await budget.acquire(10);
    const waiting = Array.from({ length: 64 }, () => budget.acquire(10));
    await expect(budget.acquire(10)).rejects.toBeInstanceOf(OverloadedError);
    held();
    for (const w of waiting) (await w)();
    expect(budget.inUse).toBe(0);
  });
});
