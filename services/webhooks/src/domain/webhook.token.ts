import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenVault } from './ports.js';

/**
 * 68 characters of `[A-Za-z0-9_-]`: 51 random bytes in base64url (408 bits from the CSPRNG), the
 * length and alphabet of the platform's tokens, which `WebhookClient`'s URL parser expects.
 */
export function newWebhookToken(): string {
  return randomBytes(51).toString('base64url');
}

export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

export const tokenDigest = (token: string): Buffer => createHash('sha256').update(token).digest();

/** Whether `presented` is the token of `digest`, in time independent of where they differ. */
export function tokenMatches(presented: string, digest: Buffer): boolean {
  const candidate = tokenDigest(presented);
  return candidate.length === digest.length && timingSafeEqual(candidate, digest);
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM under the service's key: iv ‖ tag ‖ ciphertext. */
export class AesTokenVault implements TokenVault {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    this.key = Buffer.from(keyBase64, 'base64');
    if (this.key.length !== 32) throw new Error('webhook token key must be 32 bytes');
  }

  seal(token: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}
