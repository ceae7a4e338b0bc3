import type { RateLimiter, RateRule } from './rate-limit.js';
import { digest, randomSecret } from './digest.js';
import type { OneTimeValues } from '../ports.js';

/** How long an issued fingerprint can still become an account's id. */
export const FINGERPRINT_TTL_MS = 7 * 86_400_000;

/** Each issued fingerprint is kept for a week: an address may not fill Redis with them. */
export const ISSUE_PER_IP: RateRule = { name: 'fingerprint:ip', limit: 100, windowMs: 10 * 60_000 };

/** `<snowflake>.<random>`, as the platform's fingerprints look. */
const FINGERPRINT = /^(\d{1,20})\.[A-Za-z0-9_-]{20,64}$/;

/**
 * Fingerprints for unauthenticated clients. Only ones we issued (remembered by hash) count, and
 * each can give its snowflake to one account: the first registration that settles it.
 */
export class FingerprintsService {
  constructor(
    private readonly tickets: OneTimeValues,
    private readonly ids: { next(): string },
    private readonly limiter: RateLimiter,
    private readonly ttlMs = FINGERPRINT_TTL_MS,
  ) {}

  async issue(clientIp: string): Promise<string> {
    await this.limiter.consume(ISSUE_PER_IP, clientIp || 'unknown');
    const id = this.ids.next();
    const fingerprint = `${id}.${randomSecret(20)}`;
    await this.tickets.put(keyOf(fingerprint), id, this.ttlMs);
    return fingerprint;
  }

  /** The snowflake of an issued, unused fingerprint; nothing for any other string. */
  async idOf(fingerprint: string): Promise<string | undefined> {
    const match = FINGERPRINT.exec(fingerprint);
    if (!match) return undefined;
    const id = await this.tickets.get(keyOf(fingerprint));
    return id === match[1] ? id : undefined;
  }

  async settle(fingerprint: string): Promise<void> {
    await this.tickets.delete(keyOf(fingerprint));
  }
}

const keyOf = (fingerprint: string) => `fp:${digest(fingerprint)}`;
