import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Secrets are kept in Redis only as this hash: a copy of Redis does not hand out live tokens. */
export const digest = (...parts: string[]): string => createHash('sha256').update(parts.join('\0')).digest('base64url');

/** A URL-safe random secret of `bytes` bytes (32: 256 bits). */
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
