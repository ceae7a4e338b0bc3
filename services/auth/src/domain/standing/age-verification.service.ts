import { createHash } from 'node:crypto';
import { ApiError } from '@kith/platform';
import { AgeVerificationError, type AgeVerifier } from '../../delivery/age-verification.js';
import type { OneTimeValues } from '../ports.js';

/** As long as the provider keeps an unfinished verification (k-ID: two weeks). */
const VERIFICATION_TTL_MS = 14 * 24 * 3600_000;

const keyOf = (userId: string) => `age-verification:${userId}`;

/**
 * A suspended user's age verification (the safety hub's suspended routes): the provider's check is
 * opened for them and its outcome read back. The provider learns only a digest of the user's id.
 */
export class AgeVerificationService {
  constructor(
    private readonly verifier: AgeVerifier | undefined,
    private readonly values: OneTimeValues,
  ) {}

  async request(userId: string) {
    if (!this.verifier) throw unavailable();
    const subject = createHash('sha256').update(`kith-age-verification:${userId}`).digest('hex');
    const started = await this.verifier.start(subject).catch(providerDown);
    await this.values.put(keyOf(userId), started.id, VERIFICATION_TTL_MS);
    return {
      verification_request_id: started.id,
      verification_vendor_name: this.verifier.vendorName,
      verification_webview_url: started.url,
    };
  }

  /** Whether the user's latest verification passed; none (or one the provider dropped) has not. */
  async check(userId: string): Promise<{ success: boolean }> {
    const id = await this.values.get(keyOf(userId));
    if (!id || !this.verifier) return { success: false };
    return { success: (await this.verifier.status(id).catch(providerDown)) === 'PASS' };
  }
}

const unavailable = () => new ApiError(503, { code: 0, message: 'Age verification is unavailable.' });

/** The provider unreachable or answering nonsense: the client may try again later. */
function providerDown(err: unknown): never {
  throw err instanceof AgeVerificationError ? unavailable() : err;
}
