import { describe, expect, it } from 'vitest';
import { Wakeup } from './wakeup.js';

/** Resolves to how long the sleep lasted, in ms. */
async function timed(sleep: Promise<void>): Promise<number> {
  const started = performance.now();
  await sleep;
  return performance.now() - started;
}

describe('Wakeup', () => {
  it('when nothing happens, then a sleep lasts its time', async () => {
    expect(await timed(new Wakeup().sleep(50, { acceptsNotify: true }))).toBeGreaterThanOrEqual(45);
  });

  it('when notified during a sleep that accepts it, then the sleep ends at once', async () => {
    const wakeup = new Wakeup();
    const sleeping = timed(wakeup.sleep(5_000, { acceptsNotify: true }));
    wakeup.notify();
    expect(await sleeping).toBeLessThan(1_000);
  });

  it('when notified while nobody sleeps, then the next accepting sleep returns at once, and only that one', async () => {
    const wakeup = new Wakeup();
    wakeup.notify();
    expect(await timed(wakeup.sleep(5_000, { acceptsNotify: true }))).toBeLessThan(1_000);
    wakeup.clear();
    expect(await timed(wakeup.sleep(50, { acceptsNotify: true }))).toBeGreaterThanOrEqual(45);
  });

  it('when notified during a sleep that does not accept it (a back-off), then the sleep lasts its time', async () => {
    const wakeup = new Wakeup();
    const sleeping = timed(wakeup.sleep(50, { acceptsNotify: false }));
    wakeup.notify();
    expect(await sleeping).toBeGreaterThanOrEqual(45);
  });

  it('when closed, then the current sleep and every later one end at once', async () => {
    const wakeup = new Wakeup();
    const sleeping = timed(wakeup.sleep(5_000, { acceptsNotify: false }));
    wakeup.close();
    expect(await sleeping).toBeLessThan(1_000);
    expect(await timed(wakeup.sleep(5_000, { acceptsNotify: false }))).toBeLessThan(1_000);
  });
});
