import argon2 from 'argon2';
import { OverloadedError, WorkQueue } from '@kith/platform';

export interface PasswordHasherOptions {
  memoryKiB: number;
  iterations: number;
  /** Bounds how many hashes run at once (each holds a libuv thread and a core for tens of ms). */
  queue?: WorkQueue;
}

/** argon2id, so a leaked table is costly to crack; the cost is configurable upward only. */
export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;
  private readonly queue: WorkQueue;

  constructor(private readonly options: PasswordHasherOptions) {
    this.queue = options.queue ?? new WorkQueue({ name: 'password hashing', concurrency: 2, maxWaiting: 64, maxWaitMs: 10_000 });
  }

  /** Fails with OverloadedError (503, Retry-After) when too many wait already. */
  hash(password: string): Promise<string> {
    return this.queue.run(() => this.compute(password));
  }

  private compute(password: string): Promise<string> {
    return argon2.hash(password, {
      type: argon2.argon2id,
      memoryCost: this.options.memoryKiB,
      timeCost: this.options.iterations,
      parallelism: 1,
    });
  }

  /** argon2's verify compares in constant time. */
  async verify(hash: string | null, password: string): Promise<boolean> {
    if (!hash) {
      await this.burn(password);
      return false;
    }
    try {
      return await this.queue.run(() => argon2.verify(hash, password));
    } catch (err) {
      if (err instanceof OverloadedError) throw err;
      return false;
    }
  }

  /** Spends one verification's time so an unknown login answers as slowly as a wrong password. */
  async burn(password: string): Promise<void> {
    this.dummyHash ??= this.compute('not-a-real-password-0');
    const dummy = await this.dummyHash;
    await this.queue.run(() => argon2.verify(dummy, password).catch(() => false));
  }
}
