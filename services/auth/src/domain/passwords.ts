import argon2 from 'argon2';

export interface PasswordHasherOptions {
  memoryKiB: number;
  iterations: number;
}

/** argon2id, so a leaked table is costly to crack; the cost is configurable upward only. */
export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly options: PasswordHasherOptions) {}

  hash(password: string): Promise<string> {
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
      return await argon2.verify(hash, password);
    } catch {
      return false;
    }
  }

  /** Spends one verification's time so an unknown login answers as slowly as a wrong password. */
  async burn(password: string): Promise<void> {
    this.dummyHash ??= this.hash('not-a-real-password-0');
    await argon2.verify(await this.dummyHash, password).catch(() => false);
  }
}
