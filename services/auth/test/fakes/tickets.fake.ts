import type { OneTimeValues, Windows } from '../../src/domain/ports.js';

/** In-memory single-use values for unit tests (no expiry: tests that need it use Redis). */
export class MemoryTickets implements OneTimeValues {
  readonly values = new Map<string, string>();

  put(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }

  get(key: string): Promise<string | null> {
    return Promise.resolve(this.values.get(key) ?? null);
  }

  take(key: string): Promise<string | null> {
    const value = this.values.get(key) ?? null;
    this.values.delete(key);
    return Promise.resolve(value);
  }

  delete(key: string): Promise<void> {
    this.values.delete(key);
    return Promise.resolve();
  }
}

/** In-memory rate-limit windows that never reset. */
export class MemoryWindows implements Windows {
  private readonly counts = new Map<string, number>();

  hit(key: string, windowMs: number): Promise<{ count: number; resetAfterMs: number }> {
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return Promise.resolve({ count, resetAfterMs: windowMs });
  }

  peek(key: string): Promise<{ count: number; resetAfterMs: number }> {
    return Promise.resolve({ count: this.counts.get(key) ?? 0, resetAfterMs: 0 });
  }
}
