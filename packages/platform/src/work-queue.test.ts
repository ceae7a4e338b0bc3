import { afterEach, describe, expect, it, vi } from 'vitest';
import { OverloadedError } from './errors.js';
import { WorkQueue } from './work-queue.js';

/** A job that runs until the test ends it. */
function held<T>(value: T) {
  let finish!: () => void;
  const started = vi.fn();
  const job = () => {
    started();
    return new Promise<T>((resolve) => (finish = () => resolve(value)));
  };
  return { job, started, finish: () => finish() };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => void vi.useRealTimers());

describe('WorkQueue', () => {
  it('when more jobs come than may run, then the rest wait and start in arrival order as others end', async () => {
    const queue = new WorkQueue({ concurrency: 2, maxWaiting: 10, maxWaitMs: 60_000, name: 'test' });
    const jobs = [held('a'), held('b'), held('c'), held('d')];
    const results = jobs.map((j) => queue.run(j.job));
    await flush();
    expect(jobs.map((j) => j.started.mock.calls.length)).toEqual([1, 1, 0, 0]);
    expect(queue.load).toEqual({ running: 2, waiting: 2 });

    jobs[1]!.finish();
    await flush();
    expect(jobs.map((j) => j.started.mock.calls.length)).toEqual([1, 1, 1, 0]);
    jobs[0]!.finish();
    await flush();
    expect(jobs[3]!.started).toHaveBeenCalledOnce();
    jobs[2]!.finish();
    jobs[3]!.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(queue.load).toEqual({ running: 0, waiting: 0 });
  });

  it('when a job fails, then its slot is given back all the same', async () => {
    const queue = new WorkQueue({ concurrency: 1, maxWaiting: 10, maxWaitMs: 60_000, name: 'test' });
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run(() => Promise.resolve(7))).toBe(7);
    expect(queue.load).toEqual({ running: 0, waiting: 0 });
  });

  it('when the line is full, then one more is refused at once with OverloadedError, never started', async () => {
    const queue = new WorkQueue({ concurrency: 1, maxWaiting: 2, maxWaitMs: 60_000, name: 'hashing' });
    const jobs = [held(1), held(2), held(3)];
    const results = jobs.map((j) => queue.run(j.job));
    const extra = held(4);
    const refused = await queue.run(extra.job).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OverloadedError);
    expect((refused as OverloadedError).message).toBe('hashing: full');
    expect((refused as OverloadedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(extra.started).not.toHaveBeenCalled();
    for (const j of jobs) {
      await flush();
      j.finish();
    }
    expect(await Promise.all(results)).toEqual([1, 2, 3]);
  });

  it('when a job waits longer than its longest wait, then it is refused and leaves the line; the others go on', async () => {
    vi.useFakeTimers();
    const queue = new WorkQueue({ concurrency: 1, maxWaiting: 10, maxWaitMs: 5_000, name: 'hashing' });
    const first = held('first');
    const late = held('late');
    const running = queue.run(first.job);
    const waiting = queue.run(late.job).catch((e: unknown) => e);
    vi.advanceTimersByTime(5_000);
    const refused = await waiting;
    expect(refused).toBeInstanceOf(OverloadedError);
    expect((refused as OverloadedError).message).toBe('hashing: waited too long');
    expect((refused as OverloadedError).retryAfterSeconds).toBeLessThanOrEqual(5);
    expect(queue.load).toEqual({ running: 1, waiting: 0 });
    first.finish();
    expect(await running).toBe('first');
    expect(late.started).not.toHaveBeenCalled();
    expect(queue.load).toEqual({ running: 0, waiting: 0 });
  });
});
