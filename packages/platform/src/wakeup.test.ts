import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Wakeup } from './wakeup.js';

// The clock is vitest's: a sleep ends only when its time is advanced past, or when something
// ends it. `settled` says whether a sleep has ended once pending callbacks have run.
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function watch(sleep: Promise<void>) {
  let ended = false;
  void sleep.then(() => (ended = true));
  return { settled: async () => (await vi.advanceTimersByTimeAsync(0), ended) };
}

describe('Wakeup', () => {
  it('when nothing happens, then a sleep lasts its time, and not a moment less', async () => {
    const sleep = watch(new Wakeup().sleep(50, { acceptsNotify: true }));
    await vi.advanceTimersByTimeAsync(49);
    expect(await sleep.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await sleep.settled()).toBe(true);
  });

  it('when notified during a sleep that accepts it, then the sleep ends with no time passing', async () => {
    const wakeup = new Wakeup();
    const sleep = watch(wakeup.sleep(5_000, { acceptsNotify: true }));
    expect(await sleep.settled()).toBe(false);
    wakeup.notify();
    expect(await sleep.settled()).toBe(true);
  });

  it('when notified while nobody sleeps, then the next accepting sleep returns at once, and only that one', async () => {
    const wakeup = new Wakeup();
    wakeup.notify();
    expect(await watch(wakeup.sleep(5_000, { acceptsNotify: true })).settled()).toBe(true);
    wakeup.clear();
    expect(await watch(wakeup.sleep(50, { acceptsNotify: true })).settled()).toBe(false);
  });

  it('when notified during a sleep that does not accept it (a back-off), then the sleep lasts its time', async () => {
    const wakeup = new Wakeup();
    const sleep = watch(wakeup.sleep(50, { acceptsNotify: false }));
    wakeup.notify();
    await vi.advanceTimersByTimeAsync(49);
    expect(await sleep.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await sleep.settled()).toBe(true);
  });

  it('when closed, then the current sleep and every later one end with no time passing', async () => {
    const wakeup = new Wakeup();
    const sleep = watch(wakeup.sleep(5_000, { acceptsNotify: false }));
    wakeup.close();
    expect(await sleep.settled()).toBe(true);
    expect(await watch(wakeup.sleep(5_000, { acceptsNotify: false })).settled()).toBe(true);
  });
});
