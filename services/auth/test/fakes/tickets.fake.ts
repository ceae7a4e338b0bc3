import type { TicketRecord, TicketStore } from '../../src/domain/mfa/tickets.js';
import type { BackoffAttempt, BackoffPolicy, Backoffs, OneTimeValues, Windows } from '../../src/domain/ports.js';

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

  takeFromGroup(key: string, groupKey: string): Promise<string | null> {
    const value = this.values.get(key) ?? null;
    this.values.delete(key);
    return Promise.resolve(value !== null && this.values.delete(groupKey) ? value : null);
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

  release(key: string): Promise<void> {
    const count = this.counts.get(key) ?? 0;
    if (count > 0) this.counts.set(key, count - 1);
    return Promise.resolve();
  }
}

/** MFA tickets in memory, with Redis's one-step attempt counting (no expiry). */
export class MemoryTicketStore implements TicketStore {
  readonly entries = new Map<string, { record: TicketRecord; attempts: number }>();

  put(hash: string, record: TicketRecord): Promise<void> {
    this.entries.set(hash, { record, attempts: 0 });
    return Promise.resolve();
  }

  get(hash: string): Promise<TicketRecord | undefined> {
    return Promise.resolve(this.entries.get(hash)?.record);
  }

  attempt(hash: string, maxAttempts: number): Promise<TicketRecord | undefined> {
    const entry = this.entries.get(hash);
    if (!entry || ++entry.attempts > maxAttempts) return Promise.resolve(undefined);
    return Promise.resolve(entry.record);
  }

  take(hash: string): Promise<boolean> {
    return Promise.resolve(this.entries.delete(hash));
  }
}

/** Progressive lockouts in memory, on a clock the test moves. */
export class MemoryBackoffs implements Backoffs {
  readonly entries = new Map<string, { count: number; until: number | undefined }>();
  now = 0;

  attempt(key: string, policy: BackoffPolicy): Promise<BackoffAttempt> {
    const entry = this.entries.get(key) ?? { count: 0, until: undefined };
    this.entries.set(key, entry);
    if (entry.until !== undefined && entry.until > this.now) return Promise.resolve({ waitMs: entry.until - this.now, count: entry.count });
    entry.count += 1;
    if (entry.count <= policy.threshold) return Promise.resolve({ waitMs: 0, count: entry.count });
    const delay = Math.min(policy.baseMs * 2 ** (entry.count - policy.threshold - 1), policy.maxMs);
    const first = entry.until === undefined;
    entry.until = this.now + delay;
    return Promise.resolve({ waitMs: first ? delay : 0, count: entry.count });
  }

  release(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry && entry.count > 0) entry.count -= 1;
    return Promise.resolve();
  }

  clear(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }
}
